/** Sessions 8-11 of the retrieval set: a session held partly in Chinese, a refactor, ops, a search index. */
import { type SessionScript, bash, edit, grep, numbered, read } from "./_types.ts";

const heap = Array.from(
  { length: 14 },
  (_, i) =>
    `${String(i + 1).padStart(2)}  ${["Map", "Array", "WebSocket", "Timeout", "Buffer", "string", "Object", "Closure"][i % 8]!.padEnd(10)} ${(980_000 >> (i % 6)) * (i < 3 ? 9 : 1)} bytes  retained`,
).join("\n");

export const chineseCache: SessionScript = {
  id: "b2c7d1e9-6a3f-4e8b-8f2c-0a9d5e4b3708",
  cwd: "/home/wang/src/feed-service",
  start: "2026-03-04T02:45:00.000Z",
  branch: "main",
  steps: [
    { u: "昨天晚上 8 点整，首页接口突然大量超时，数据库 CPU 打满了。帮我看看是怎么回事？" },
    bash(
      "grep 'cache miss' logs/feed.log | awk '{print substr($1,1,16)}' | sort | uniq -c | sort -rn | head -n 5",
      "  48211 2026-03-03T20:00\n   1733 2026-03-03T20:01\n    402 2026-03-03T19:59\n    388 2026-03-03T20:02\n    377 2026-03-03T19:58",
    ),
    read(
      "/home/wang/src/feed-service/src/cache/warm.go",
      numbered(
        `func WarmHomeFeed(ctx context.Context, rdb *redis.Client, items []Item) error {
	for _, it := range items {
		if err := rdb.Set(ctx, "feed:"+it.ID, it.JSON(), 24*time.Hour).Err(); err != nil {
			return err
		}
	}
	return nil
}`,
        30,
      ),
    ),
    {
      think:
        "All keys are written by the nightly warm job at 20:00 the previous day with a fixed 24h TTL, so they all expire at the same second: a cache avalanche. Fix: jitter the TTL, plus singleflight so concurrent misses for one key hit the DB once.",
      a: "这是典型的缓存雪崩：预热任务在前一天 20:00 一次性写入所有 key，TTL 固定为 24 小时，所以它们在同一秒全部过期，所有请求同时打到数据库。修复办法是给 TTL 加随机抖动，让过期时间分散在 24 到 26 小时之间，同时用 singleflight 合并同一个 key 的并发回源请求。",
    },
    edit(
      "/home/wang/src/feed-service/src/cache/warm.go",
      '\t\tif err := rdb.Set(ctx, "feed:"+it.ID, it.JSON(), 24*time.Hour).Err(); err != nil {',
      '\t\t// 过期时间加抖动，避免同时失效（缓存雪崩）\n\t\tttl := 24*time.Hour + time.Duration(rand.Int63n(int64(2*time.Hour)))\n\t\tif err := rdb.Set(ctx, "feed:"+it.ID, it.JSON(), ttl).Err(); err != nil {',
    ),
    edit(
      "/home/wang/src/feed-service/src/cache/get.go",
      "func GetFeedItem(ctx context.Context, id string) (Item, error) {",
      "var group singleflight.Group\n\nfunc GetFeedItem(ctx context.Context, id string) (Item, error) {",
    ),
    bash("go test ./src/cache/...", "ok  \tgithub.com/acme/feed-service/src/cache\t0.412s"),
    { u: "好的。另外能不能加个限流？上周有个爬虫把接口刷爆了。" },
    {
      a: "可以。我建议在网关层按 IP 和用户 ID 做令牌桶限流：匿名用户每秒 20 个请求，登录用户每秒 50 个，突发上限是速率的两倍。限流计数放在 Redis 里用 Lua 脚本原子执行，这样多个实例共享同一个桶。",
    },
    edit(
      "/home/wang/src/feed-service/src/middleware/ratelimit.go",
      "",
      "// Token bucket per key, shared across instances through one Lua script in Redis.\nvar tokenBucketScript = redis.NewScript(`\nlocal tokens = tonumber(redis.call('HGET', KEYS[1], 't') or ARGV[2])\n-- refill since last call, then take one\n`)\n\nfunc RateLimit(anonPerSec, userPerSec int) gin.HandlerFunc {",
    ),
    bash("go test ./src/middleware/...", "ok  \tgithub.com/acme/feed-service/src/middleware\t1.208s"),
    { u: "还有一个问题：推送服务的内存每天涨 2GB 左右，重启后又正常了。" },
    bash(
      "go tool pprof -top -inuse_space http://push-1:6060/debug/pprof/heap | head -n 20",
      `Showing nodes accounting for 2.1GB, 96.3% of 2.18GB total\n${heap}`,
    ),
    grep("subscribers\\[", "src/push", "src/push/hub.go:41:\th.subscribers[conn.ID] = conn\nsrc/push/hub.go:58:\t// TODO: remove on close?"),
    {
      a: "内存泄漏的原因找到了：WebSocket 断开时，连接对象没有从 hub 的 subscribers map 里删除，每个断开的连接连同它的发送缓冲区都一直被引用着。我在连接的 close 回调里加上了删除操作，并加了一个测试，断开 1000 个连接后 map 应该为空。",
    },
    edit(
      "/home/wang/src/feed-service/src/push/hub.go",
      "\t// TODO: remove on close?",
      "\tconn.OnClose(func() {\n\t\th.mu.Lock()\n\t\tdelete(h.subscribers, conn.ID)\n\t\th.mu.Unlock()\n\t})",
    ),
    bash(
      "go test ./src/push/ -run TestHubForgetsClosed -v",
      "=== RUN   TestHubForgetsClosed\n--- PASS: TestHubForgetsClosed (0.18s)\nPASS\nok  \tgithub.com/acme/feed-service/src/push\t0.231s",
    ),
  ],
};

export const authRefactor: SessionScript = {
  id: "f4a8c2e6-1d9b-4f3a-b7c5-2e6d8a0f4709",
  cwd: "/home/dev/src/shop-api",
  start: "2026-02-19T11:00:00.000Z",
  branch: "refactor/auth-middleware",
  steps: [
    { u: "every route handler in src/routes does its own token check. I want one auth middleware instead. Also rename getUserById to findUser everywhere." },
    grep(
      "verifyToken\\(",
      "src/routes",
      Array.from(
        { length: 14 },
        (_, i) =>
          `src/routes/${["orders", "cart", "users", "returns", "addresses", "wishlist", "reviews"][i % 7]}.ts:${12 + i * 4}:  const claims = await verifyToken(req.headers.authorization);`,
      ).join("\n"),
    ),
    {
      a: "Fourteen handlers across seven route files call verifyToken on their own, and two of them (reviews and wishlist) forget to check the token's audience claim. A middleware fixes that once.",
    },
    edit(
      "/home/dev/src/shop-api/src/middleware/auth.ts",
      "",
      '/** Verifies the bearer token once per request; handlers read req.user. */\nexport const requireAuth: Middleware = async (req, res, next) => {\n  const claims = await verifyToken(req.headers.authorization, { audience: "shop-api" });\n  if (!claims) return res.status(401).json({ error: "unauthorized" });\n  req.user = { id: claims.sub, roles: claims.roles };\n  next();\n};',
    ),
    { u: "where do we keep the session token on the client? someone suggested localStorage" },
    {
      think:
        "localStorage is readable by any script on the page, so an XSS steals the token. An HttpOnly, Secure, SameSite=Lax cookie cannot be read by scripts. The API and the storefront share the parent domain.",
      a: "Keep it in an HttpOnly Secure cookie with SameSite=Lax, not localStorage: anything in localStorage is readable by any script on the page, so a single XSS bug would leak every session token. The cookie cannot be read from JavaScript at all, and since the storefront and API share shop.example the cookie is sent without CORS credentials tricks. CSRF is covered by SameSite=Lax plus the existing double-submit token on POST.",
    },
    bash(
      "git grep -l getUserById | xargs sed -i 's/getUserById/findUser/g' && git grep -c findUser",
      "src/routes/orders.ts:3\nsrc/routes/users.ts:5\nsrc/services/users.ts:2\nsrc/services/returns.ts:1\ntest/users.test.ts:4",
    ),
    bash(
      "npx tsc --noEmit",
      "src/services/users.ts(18,17): error TS2393: Duplicate function implementation.\nsrc/services/users.ts(31,17): error TS2393: Duplicate function implementation.",
      "Typecheck",
      true,
    ),
    read(
      "/home/dev/src/shop-api/src/services/users.ts",
      numbered(
        `export async function findUser(id: string) {
  return db.users.findUnique({ where: { id } });
}

/** Lookup by email for the login form. */
export async function findUser(email: string) {
  return db.users.findUnique({ where: { email } });
}`,
        18,
      ),
    ),
    {
      a: "The rename collided with an existing findUser that looks users up by email. I renamed that one to findUserByEmail first, then applied the rename again.",
    },
    edit(
      "/home/dev/src/shop-api/src/services/users.ts",
      "/** Lookup by email for the login form. */\nexport async function findUser(email: string) {",
      "/** Lookup by email for the login form. */\nexport async function findUserByEmail(email: string) {",
    ),
    bash(
      "npx tsc --noEmit && npm test",
      "> shop-api@2.3.0 test\n> vitest run\n\n Test Files  42 passed (42)\n      Tests  388 passed (388)\n   Duration  19.71s",
    ),
    { u: "can we ship the middleware behind a flag in case something breaks?" },
    {
      a: "Yes: the flag auth.middleware in our Unleash setup switches between the middleware and the old per-handler checks, default off in production, on in staging. I'll remove the old code path two weeks after it is fully on, tracked as SHOP-2291.",
    },
    edit(
      "/home/dev/src/shop-api/src/app.ts",
      'app.use("/api", routes);',
      'app.use("/api", flags.isEnabled("auth.middleware") ? requireAuth : passThrough, routes);',
    ),
    bash(
      "git commit -am 'auth: one middleware behind auth.middleware flag; rename getUserById to findUser'",
      "[refactor/auth-middleware 0d7e55a] auth: one middleware behind auth.middleware flag; rename getUserById to findUser\n 12 files changed, 61 insertions(+), 88 deletions(-)",
    ),
  ],
};

const dfOut = `Filesystem      Size  Used Avail Use% Mounted on
/dev/nvme0n1p1   40G   21G   19G  53% /
/dev/nvme1n1    200G  200G     0 100% /var/log
tmpfs           3.9G     0  3.9G   0% /dev/shm`;

const duOut = `187G\t/var/log/app
9.1G\t/var/log/journal
2.3G\t/var/log/nginx`;

export const opsDisk: SessionScript = {
  id: "a0b9c8d7-e6f5-4a3b-9c2d-1e0f9a8b770a",
  cwd: "/home/ops/infra",
  start: "2026-03-12T04:10:00.000Z",
  branch: "main",
  steps: [
    { u: "api-3 is returning 500s and the on-call page says 'No space left on device'. please help, I'm half asleep" },
    bash("ssh api-3 'df -h'", dfOut),
    bash("ssh api-3 'sudo du -sh /var/log/* | sort -rh | head -n 3'", duOut),
    bash(
      "ssh api-3 'ls -la /var/log/app | tail -n 4 && cat /etc/logrotate.d/app'",
      "-rw-r--r-- 1 app app 187G Mar 12 04:09 app.log\n/var/log/app/*.log {\n    daily\n    rotate 7\n    compress\n    missingok\n}",
    ),
    {
      think:
        "logrotate config looks fine but the file is 187G, so rotation has not happened. The app keeps the file open; without copytruncate or a postrotate signal it writes into the renamed file. Or logrotate itself failed. Check status.",
    },
    bash(
      "ssh api-3 'sudo grep app /var/lib/logrotate/status; systemctl status logrotate.timer | head -n 3'",
      '"/var/log/app/app.log" 2026-1-20-0:0:0\n○ logrotate.timer - Daily rotation of log files\n     Loaded: loaded (/lib/systemd/system/logrotate.timer; disabled; vendor preset: enabled)\n     Active: inactive (dead)',
    ),
    {
      a: "The logrotate timer on api-3 is disabled, so app.log has not rotated since January 20 and filled the 200G log volume. It was probably switched off during the image rebuild in January; the other API hosts have it enabled.",
    },
    bash(
      "ssh api-3 'sudo truncate -s 0 /var/log/app/app.log && sudo systemctl enable --now logrotate.timer && df -h /var/log'",
      "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme1n1    200G   12G  188G   6% /var/log",
    ),
    {
      a: "Truncated the live log (the app keeps writing to the same inode, so rm would not free the space) and enabled the timer. I also added copytruncate, because the app never reopens its log file on SIGHUP.",
    },
    edit(
      "/home/ops/infra/ansible/roles/app/files/logrotate-app",
      "    compress\n    missingok",
      "    compress\n    delaycompress\n    copytruncate\n    missingok\n    maxsize 5G",
    ),
    { u: "thanks. journal is 9G too, is that ok?" },
    edit("/home/ops/infra/ansible/roles/base/files/journald.conf", "#SystemMaxUse=", "SystemMaxUse=2G\nMaxRetentionSec=14day"),
    { a: "I capped journald at 2G and 14 days of retention in the base role, so every host gets it on the next ansible run." },
    { u: "also I got an email that the TLS cert for status.acme.io expires in 3 days, isn't certbot supposed to renew?" },
    bash(
      "ssh edge-1 'sudo certbot certificates 2>/dev/null | grep -A4 status.acme.io; sudo tail -n 6 /var/log/letsencrypt/letsencrypt.log'",
      "  Certificate Name: status.acme.io\n    Domains: status.acme.io\n    Expiry Date: 2026-03-15 02:11:40+00:00 (VALID: 3 days)\n2026-03-11 12:00:03,118:DEBUG:certbot._internal.renewal:Cert is due for renewal, auto-renewing...\n2026-03-11 12:00:09,552:WARNING:certbot._internal.renewal:Attempting to renew cert (status.acme.io) from /etc/letsencrypt/renewal/status.acme.io.conf produced an unexpected error: Could not bind TCP port 80 because it is already in use by another process on this system (such as a web server). Skipping.\n2026-03-11 12:00:09,553:ERROR:certbot._internal.renewal:All renewals failed.",
    ),
    {
      a: "Renewal fails because the renewal config uses the standalone authenticator, which wants port 80 while nginx holds it. Switching that certificate to the webroot authenticator lets nginx keep serving and a deploy hook reloads nginx after renewal.",
    },
    bash(
      "ssh edge-1 'sudo certbot certonly --webroot -w /var/www/acme -d status.acme.io --deploy-hook \"systemctl reload nginx\" --force-renewal'",
      'Successfully received certificate.\nCertificate is saved at: /etc/letsencrypt/live/status.acme.io/fullchain.pem\nThis certificate expires on 2026-06-10.\nDeploy hook command "systemctl reload nginx" returned: 0',
    ),
  ],
};

export const searchReindex: SessionScript = {
  id: "d5e4f3a2-b1c0-4d9e-8f7a-6b5c4d3e270b",
  cwd: "/home/dev/src/catalog-search",
  start: "2026-03-18T09:30:00.000Z",
  branch: "feat/synonyms",
  steps: [
    {
      u: "We need synonyms in product search (sofa = couch etc.) and the mapping change needs a reindex. Last time a reindex took search down for 20 minutes.",
    },
    read(
      "/home/dev/src/catalog-search/scripts/reindex.sh",
      numbered(`curl -XDELETE "$ES/products"
curl -XPUT "$ES/products" -H 'Content-Type: application/json' -d @mapping.json
node bulk-load.js --index products`),
    ),
    {
      a: "The script deletes the live index before rebuilding it, which is exactly why search was down last time. Instead we build a new versioned index (products_v7), fill it, then move the products alias to it in one atomic _aliases call and delete the old index afterwards.",
    },
    edit(
      "/home/dev/src/catalog-search/scripts/reindex.sh",
      'curl -XDELETE "$ES/products"\ncurl -XPUT "$ES/products" -H \'Content-Type: application/json\' -d @mapping.json\nnode bulk-load.js --index products',
      'NEW="products_v$(date +%s)"\ncurl -XPUT "$ES/$NEW" -H \'Content-Type: application/json\' -d @mapping.json\nnode bulk-load.js --index "$NEW"\n# one atomic alias swap: readers never see an empty index\ncurl -XPOST "$ES/_aliases" -H \'Content-Type: application/json\' -d "{\\"actions\\":[{\\"remove\\":{\\"index\\":\\"products_v*\\",\\"alias\\":\\"products\\"}},{\\"add\\":{\\"index\\":\\"$NEW\\",\\"alias\\":\\"products\\"}}]}"',
    ),
    { u: "and the synonyms, index time or query time?" },
    {
      think:
        "Query-time synonyms with synonym_graph and an updateable synonyms set can be changed without reindexing. Index-time synonyms inflate the index and need a reindex per change. Merchandisers will edit the list often.",
      a: "Query time. Merchandising will edit the list every week, and with a synonym_graph filter in the search analyzer marked updateable the list can be reloaded with _reload_search_analyzers, no reindex needed. Index-time synonyms would force a full reindex for every edit.",
    },
    edit(
      "/home/dev/src/catalog-search/mapping.json",
      '"analyzer": {',
      '"filter": { "product_synonyms": { "type": "synonym_graph", "synonyms_path": "analysis/synonyms.txt", "updateable": true } },\n    "analyzer": {\n      "search_with_synonyms": { "tokenizer": "standard", "filter": ["lowercase", "product_synonyms"] },',
    ),
    bash(
      "bash scripts/reindex.sh",
      '{"acknowledged":true,"shards_acknowledged":true,"index":"products_v1773826201"}\nbulk-load: 1,284,903 documents in 412 batches (6m41s), 0 errors\n{"acknowledged":true}',
    ),
    bash('curl -s "$ES/products/_search?q=couch&size=0" | jq .hits.total.value', "18422"),
    { a: "The reindex took 6m41s with no downtime: the alias moved in one step. A search for couch now also finds sofas (18,422 hits)." },
    { u: "some queries for 'tv stand' now return TVs first" },
    {
      think:
        "The synonym list probably has 'tv, television' and the multi-word 'tv stand' gets split. synonym_graph handles multi-word synonyms, but the match query default operator is OR so 'tv' alone scores high. Use a match_phrase boost or minimum_should_match.",
    },
    {
      a: "With the default OR operator a product titled just TV matches one of the two words and scores high through the synonym expansion. I set minimum_should_match to 75% on the title query and added a match_phrase boost of 2, so tv stand ranks stands first.",
    },
    edit("/home/dev/src/catalog-search/src/query.ts", "match: { title: { query: q } }", 'match: { title: { query: q, minimum_should_match: "75%" } }'),
  ],
};
