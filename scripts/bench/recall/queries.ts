/**
 * The labelled queries (DESIGN.md 11): each aims at one fact said once in the
 * sessions, labelled with an exact substring of the one turn that holds it.
 * Styles: k = keywords as an agent types them, q = a question as a person
 * asks it, p = a paraphrase in other words than the source.
 *
 * The split was fixed once from SHA-256 of the query text (even first byte:
 * tune) and is written here so editing a query never moves it. HELD-OUT
 * queries are for reporting only: never study or tune to them one by one.
 */
import type { Query, Split, Style } from "./_types.ts";

const STYLE = { k: "keyword", q: "question", p: "paraphrase" } as const satisfies Record<string, Style>;
const SPLIT = { T: "tune", H: "heldout" } as const satisfies Record<string, Split>;

type Row = [style: keyof typeof STYLE, split: keyof typeof SPLIT, query: string, answer: string];

const ROWS: Row[] = [
  // upload client
  ["k", "T", "upload retry count", "const uploadRetryCount = 0;"],
  ["q", "H", "why did we turn off the retry in the upload client?", "We turn off the retry because resume-from-ListParts makes it redundant"],
  ["p", "T", "what made videos appear twice in a user's library", "the finalizer on our side creates a second media row"],
  ["k", "T", "finalize dedupe upload id", "The finalizer now dedupes on the upload id"],
  ["q", "H", "what unique index is there on the media upload id?", "media_upload_id_key"],
  ["p", "H", "progress indicator going back to the start after continuing a transfer", "on resume the progress starts from the bytes the server already holds"],
  ["k", "T", "multipart test expected 3 calls", "expected 3 calls, received 1"],
  ["q", "H", "which test did we rewrite after disabling upload retries?", "leaves a failed part for resume"],
  [
    "p",
    "T",
    "how does the client learn which chunks the server already has",
    "the resumable protocol already asks the server which parts it holds (ListParts)",
  ],
  // staging deploy
  ["k", "H", "staging deploy timeout", "the readiness probe times out: the catalog warm-up on startup takes about 40 seconds"],
  ["k", "T", "readiness probe failed checkout-api", "Readiness probe failed: Get"],
  [
    "q",
    "T",
    "why didn't we just raise the helm timeout for checkout-api?",
    "Bumping the helm timeout alone would only wait longer for pods that keep getting killed",
  ],
  ["p", "T", "how long may the service take to boot before kubernetes gives up on it", "with the startupProbe allowing up to 150 seconds of warm-up"],
  ["k", "H", "startupProbe failureThreshold", "failureThreshold: 30"],
  ["q", "H", "what is the ticket for lazy catalog loading?", "follow-up ticket CHK-1182"],
  ["p", "H", "why is the service slow to come up after it starts", "It loads every product once per locale, 31 locales one after another"],
  ["q", "T", "which helm revision fixed the staging rollout?", "revision 57 rolled out in 2m10s"],
  ["p", "H", "containers restarted by the health check before they finished loading", "the liveness probe kills the pod before warm-up ends"],
  ["p", "T", "why keep the pipeline's wait limit unchanged", "so a real hang still fails fast"],
  // cron and DST
  ["p", "H", "what broke when the clock changed", "the DST shift made the cron job fire twice"],
  ["k", "T", "croner version DST bug", "croner 6.0.2 has a known bug"],
  ["q", "T", "why do the billing jobs run in UTC?", "We decided to schedule in UTC rather than local time"],
  ["k", "T", "invoice batch already ran", "invoice batch already ran, skipping"],
  ["q", "T", "how many duplicate invoices were created on March 8?", "412 duplicate invoices from the second run"],
  ["p", "T", "what did we do with the extra bills instead of removing them", "I'll void them with a script rather than delete so the audit log keeps them"],
  ["k", "H", "void_reason dst-double-run", "void_reason = 'dst-double-run'"],
  ["q", "H", "when does the invoice run fire in New York time now?", "06:30 UTC is 01:30 or 02:30 in New York"],
  ["p", "T", "stop the billing job from running a second time for the same day", "the invoice run should refuse a batch date that already ran"],
  ["p", "T", "were customers actually charged for the doubled bills", "None were charged yet because the charge job runs at 09:00"],
  // postgres
  ["k", "H", "orders seq scan customer_id", "Seq Scan on orders"],
  ["q", "T", "which index did we add to speed up the order history?", "composite index on orders (customer_id, created_at DESC)"],
  ["p", "H", "why can't that schema change be wrapped in a transaction", "which means the migration must opt out of the transaction wrapper"],
  ["k", "T", "prepared statement already exists pgbouncer", "named prepared statements live on a server connection"],
  ["q", "T", "why did we keep pgbouncer in transaction mode?", "because session mode would need about 400 server connections at peak"],
  ["k", "T", "pgbouncer docker image version", "edoburu/pgbouncer:v1.22.1-p0"],
  ["p", "T", "the cleanup of deleted rows on the orders table never seems to complete", "9.1 million dead tuples on orders"],
  ["q", "H", "what autovacuum scale factor did we set for orders?", "autovacuum_vacuum_scale_factor = 0.02"],
  ["p", "T", "how fast did the big customer's order page get", "From 2231 ms to 0.4 ms for that customer."],
  ["p", "H", "reporting job blocking table maintenance", "gets cancelled by the nightly reporting lock"],
  ["q", "T", "how long did the order history query take before the fix?", "Execution Time: 2231.561 ms"],
  // frontend
  ["k", "T", "hydration warning checkout", "That mismatch is the hydration warning"],
  ["q", "T", "why does the delivery date differ between server and client?", "The server renders minDate from its own clock and time zone (UTC)"],
  ["p", "T", "latest hour to order for shipping the next day", "the warehouse cutoff is 14:00 local"],
  ["k", "T", "Safari date input text box", "Safari before 14.1 on macOS has no native date picker"],
  ["q", "H", "why didn't we use a date picker polyfill?", "rather than a polyfill I'd accept typed dates in ISO and German formats"],
  ["k", "T", "parse typed date", "export function parseTypedDate"],
  ["k", "T", "lodash bundle size", "vendor-lodash went from 71.5 kB to 4.1 kB"],
  ["p", "H", "which dependency should we slim down after the utility one", "The date library chunk (67.9 kB) is next"],
  ["q", "H", "what share of checkout sessions use an old Safari?", "3.8% of checkout sessions"],
  ["p", "T", "flashing field on the payment page", "React re-rendering the input is the flicker"],
  ["p", "T", "how did we make the utility library smaller", "Switching to per-method imports from lodash-es"],
  ["q", "T", "which time zone is used for the delivery cutoff?", "in the shop's time zone (Europe/Berlin"],
  // CI
  ["k", "H", "npm cache key lockfile hash", "hashFiles('package-lock.json')"],
  ["q", "T", "how many shards does the e2e job use?", "shard e2e over 4 runners"],
  ["p", "T", "why did the shopping basket total test sometimes fail", "so it races the debounced cart update"],
  ["q", "H", "why don't we add retries to flaky tests?", "we agreed retries hide real races"],
  ["k", "H", "playwright repeat-each 50 passed", "1500 passed (6.1m)"],
  ["p", "H", "which version of the JavaScript runtime does the pipeline pin now", "set .nvmrc to 20.11.1"],
  ["k", "H", "CI duration minutes", "7 minutes 53 seconds instead of 22 minutes"],
  ["k", "H", "playwright browsers install every run", "Playwright browsers are installed on every run"],
  ["p", "H", "outdated packages restored in the build", "so it restores a stale cache"],
  ["p", "H", "which runtime release stops getting support", "Node 18 reaches end of life in April 2025"],
  // payments, in Japanese
  ["q", "T", "Webhook の署名検証が失敗する原因は？", "署名の検証が生のリクエストボディではなく"],
  ["k", "T", "署名 生のボディ 検証", "署名は生のボディで検証する"],
  ["q", "T", "取りこぼした決済イベントは何件でしたか", "未処理のイベントは 37 件でした"],
  ["p", "T", "Excel で CSV の日本語が読めなくなる理由", "BOM のない CSV を Shift_JIS として読むため"],
  ["q", "T", "なぜ Shift_JIS に変換しなかったのですか", "絵文字や一部の漢字（𠮷 など）が表現できない"],
  ["k", "H", "PAY.JP 再送", "PAY.JP は失敗した Webhook を最大 3 回"],
  ["p", "H", "ログにお客様の連絡先が出ていた件はどう直した", "メールアドレスはハッシュ化した customer_ref に置き換え"],
  ["k", "T", "customer_ref hashRef", "customer_ref: hashRef(evt.data.customer.id)"],
  ["p", "H", "決済の失敗通知は自動でもう一度届くのか", "間隔をあけて再送しますが"],
  // cache, in Chinese
  ["q", "H", "首页接口超时的原因是什么？", "这是典型的缓存雪崩：预热任务在前一天"],
  ["k", "H", "TTL 随机抖动", "让过期时间分散在 24 到 26 小时之间"],
  ["k", "H", "singleflight", "用 singleflight 合并同一个 key 的并发回源请求"],
  ["q", "H", "限流的速率是多少？", "匿名用户每秒 20 个请求，登录用户每秒 50 个"],
  ["p", "H", "为什么多个实例能共用同一个计数", "限流计数放在 Redis 里用 Lua 脚本原子执行"],
  ["p", "T", "推送服务内存一直上涨是怎么解决的", "内存泄漏的原因找到了：WebSocket 断开时"],
  ["k", "H", "subscribers map delete on close", "delete(h.subscribers, conn.ID)"],
  ["k", "H", "cache miss 20:00", "48211 2026-03-03T20:00"],
  ["k", "H", "token bucket script", "var tokenBucketScript = redis.NewScript"],
  ["p", "T", "大量 key 在同一时刻失效", "所以它们在同一秒全部过期"],
  ["q", "H", "断开连接以后 map 里还应该剩下什么？", "断开 1000 个连接后 map 应该为空"],
  // auth refactor
  ["q", "T", "why not keep the session token in localStorage?", "a single XSS bug would leak every session token"],
  ["k", "T", "auth middleware audience claim", "forget to check the token's audience claim"],
  ["p", "H", "where does the login credential live in the browser", "Keep it in an HttpOnly Secure cookie with SameSite=Lax"],
  ["k", "H", "find user by email rename", "I renamed that one to findUserByEmail first"],
  ["q", "H", "what broke in the getUserById rename?", "The rename collided with an existing findUser"],
  ["k", "H", "TS2393 Duplicate function implementation", "src/services/users.ts(18,17): error TS2393"],
  ["q", "H", "when will the old per-handler auth checks be removed?", "two weeks after it is fully on, tracked as SHOP-2291"],
  ["p", "T", "how do we switch the new login check on and off", "the flag auth.middleware in our Unleash setup"],
  ["p", "H", "how is cross-site request forgery handled", "CSRF is covered by SameSite=Lax plus the existing double-submit token"],
  ["p", "H", "two endpoints skip part of the token validation", "two of them (reviews and wishlist)"],
  // ops
  ["k", "H", "logrotate timer disabled api-3", "The logrotate timer on api-3 is disabled"],
  ["q", "T", "why did the log volume fill up?", "app.log has not rotated since January 20"],
  ["p", "T", "why not just delete the huge file to get space back", "so rm would not free the space"],
  ["k", "T", "logrotate copytruncate", "I also added copytruncate, because the app never reopens its log file"],
  ["k", "T", "journald SystemMaxUse", "SystemMaxUse=2G"],
  ["q", "T", "how long do we keep journal logs?", "14 days of retention in the base role"],
  ["k", "T", "certbot renewal port 80", "Could not bind TCP port 80 because it is already in use"],
  ["q", "T", "why did the status page certificate not renew?", "the renewal config uses the standalone authenticator"],
  ["p", "H", "how will the web server pick up the new certificate", "a deploy hook reloads nginx after renewal"],
  ["k", "T", "status.acme.io certificate expiry", "This certificate expires on 2026-06-10"],
  ["p", "T", "rotation of application logs had been switched off on one server", "It was probably switched off during the image rebuild in January"],
  // search reindex
  ["q", "T", "why was search down during the last reindex?", "The script deletes the live index before rebuilding it"],
  ["k", "T", "elasticsearch alias swap", "move the products alias to it in one atomic _aliases call"],
  ["q", "H", "why query-time synonyms instead of index-time?", "Merchandising will edit the list every week"],
  ["k", "T", "_reload_search_analyzers", "reloaded with _reload_search_analyzers"],
  ["p", "H", "how long did rebuilding the product index take", "The reindex took 6m41s with no downtime"],
  ["p", "T", "looking for furniture to put the television on returns televisions", "minimum_should_match to 75% on the title query"],
  ["k", "T", "bulk-load documents batches", "1,284,903 documents in 412 batches"],
  ["k", "H", "couch sofa synonyms hits", "also finds sofas (18,422 hits)"],
  ["p", "T", "shoppers never see an empty catalogue while it is rebuilt", "readers never see an empty index"],
  // added to reach forty per style
  ["q", "T", "why not simply lower the upload retry count?", "Lowering retries does not fix it"],
  ["q", "H", "what did we raise the readiness probe timeout to?", "raise the probe timeout to 3s"],
  ["q", "H", "which croner version did we upgrade to?", "npm install croner@8.1.2"],
  ["q", "T", "what pgbouncer version supports prepared statements in transaction mode?", "pgbouncer 1.21+ with max_prepared_statements"],
  ["q", "H", "which file imported all of lodash?", "Summary.tsx imports the whole library as _ for one debounce"],
  ["q", "T", "what was wrong with the npm cache in CI?", "the npm cache key never changes (no hash of package-lock.json)"],
  ["q", "T", "which certbot authenticator does status.acme.io use now?", "--webroot -w /var/www/acme"],
  ["q", "T", "how are the new product index names built?", "products_v$(date +%s)"],
  ["q", "T", "how many route handlers did their own token check?", "Fourteen handlers across seven route files"],
  ["q", "H", "CSV の文字化けはどう直しましたか", "UTF-8 のまま先頭に BOM を付ける方針にしました"],
  ["p", "T", "adding the speed-up for order lookups without blocking writes", "It has to be created CONCURRENTLY so writes are not blocked"],
  ["p", "H", "防止单个来源请求过多的方案放在哪一层", "我建议在网关层按 IP 和用户 ID 做令牌桶限流"],
  ["k", "T", "pprof heap push service", "Showing nodes accounting for 2.1GB"],
  ["k", "H", "liveness probe 503", "Liveness probe failed: HTTP probe failed with statuscode: 503"],
  ["k", "H", "warmCatalog locales", "warmCatalog(db, { locales: ALL_LOCALES })"],
];

/** Every labelled query. */
export const QUERIES: Query[] = ROWS.map(([style, split, query, answer]) => ({ style: STYLE[style], split: SPLIT[split], query, answer }));
