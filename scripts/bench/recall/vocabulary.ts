/**
 * The developer vocabulary distractor turns are made of: nouns, verbs and
 * plain English a coding agent's memory is full of, so a query's words also
 * occur in thousands of turns that do not answer it (DESIGN.md 11).
 */

const w = (s: string) => s.trim().split(/\s+/);

/** Things software is made of. */
export const NOUNS = w(`
user order invoice payment cart checkout product catalog session token cache queue worker job cron schedule deploy release
build pipeline test fixture migration index table query schema column row connection pool timeout retry upload download file
image video media stream buffer socket request response header cookie auth login password email notification webhook event
log metric trace alert dashboard config flag feature service client server proxy gateway router handler middleware controller
model view component page form input button modal layout style theme bundle chunk asset script module package dependency
version branch commit merge rebase conflict review lint format type interface error exception warning crash leak memory cpu
disk volume node pod container cluster namespace probe replica secret certificate domain dns balancer rate limit quota report
export import csv json yaml locale translation date zone clock calendar search synonym alias shard backup restore snapshot
vacuum lock transaction statement progress resume part multipart checksum signature hash key permission role tenant account
profile address delivery shipping warehouse stock price discount coupon tax currency refund subscription plan trial customer
admin staging production preview sandbox database postgres redis elasticsearch kafka nginx helm kubernetes docker terraform
ansible lambda bucket storage thumbnail preview encoder decoder parser serializer validator scheduler dispatcher listener
callback promise thread mutex channel goroutine heap stack frame readiness liveness startup shutdown signal hook plugin
adapter driver provider registry endpoint route param payload body field value record entry batch cursor offset page
limit filter sort group aggregate report analytics experiment variant cohort funnel retention churn onboarding settings
`);

/** What is done to them. */
export const VERBS = w(`
get set load save fetch parse render validate update create delete remove sync flush init start stop handle build resolve
compute format send receive retry schedule cancel reload refresh migrate index warm dedupe merge split encode decode sign
verify check apply rollback restart drain scale patch bump pin upgrade downgrade rename extract inline wrap memoize debounce
throttle batch stream serialize hydrate mount unmount register emit dispatch subscribe publish normalize sanitize escape
`);

/** Plain English between the technical words. */
export const ENGLISH = w(`
the a an and or but so because when while after before then now again still just also only even maybe probably actually
this that these those it its we our you your they their there here what which who why how where
is are was were be been being have has had do does did done can could should would will might must
not no yes all any some many more most less few each every other same different new old first last next previous
good bad better worse fine wrong right broken slow fast quick large small big tiny long short high low full empty
works fails passes breaks looks seems happens changes stays keeps gets goes comes makes takes gives shows says means
think know see find try need want use like let put run read write look ask tell call turn move change fix add
time day week hour minute second morning night today yesterday tomorrow earlier later soon once twice often never always
thing way part case point problem issue question answer reason idea plan step note detail example number list name
around about over under between through during without within across against along behind beyond into onto upon
really quite very pretty rather almost enough too much little lot bit kind sort rest whole half both either neither
team person people someone everyone nobody customer colleague reviewer
`);

/** Japanese and Chinese phrases a bilingual team writes (no spaces between words). */
export const CJK = [
  "キャッシュの設定を見直しました",
  "デプロイが失敗しています",
  "テストがタイムアウトしました",
  "ログを確認してください",
  "エラーの原因を調べます",
  "設定ファイルを更新しました",
  "データベースの接続が切れました",
  "レビューをお願いします",
  "本番環境で再現しました",
  "この関数をリファクタリングします",
  "缓存配置已经更新",
  "部署失败了，请检查日志",
  "测试超时，需要重试",
  "数据库连接池已满",
  "这个接口的响应很慢",
  "请帮我看一下这个错误",
  "内存占用一直在上涨",
  "我们需要加一个索引",
  "配置文件里的参数不对",
  "线上环境已经回滚",
];

/** Directories of a typical repository. */
export const DIRS = w("src lib app packages services api web server worker scripts test e2e deploy config migrations internal cmd pkg components hooks utils");

/** File extensions. */
export const EXTS = w("ts tsx js go py rb rs yaml yml json sql sh md toml");

/** Host and service names. */
export const HOSTS = w("api-1 api-2 worker-1 worker-4 db-primary db-replica-2 cache-1 edge-2 ci-runner-7 build-3 search-2 queue-1");
