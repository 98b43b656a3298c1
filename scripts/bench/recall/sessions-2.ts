/** Sessions 5-7 of the retrieval set: a frontend, CI, and a session held partly in Japanese. */
import { type SessionScript, bash, edit, grep, numbered, read } from "./_types.ts";

const buildStats = [
  "vite v5.2.11 building for production...",
  "✓ 1843 modules transformed.",
  ...["index", "checkout", "account", "vendor-react", "vendor-lodash", "vendor-date"].map(
    (n, i) =>
      `dist/assets/${n}-${(0x3a7f1 * (i + 3)).toString(16)}.js   ${[88.2, 143.9, 61.4, 142.3, 71.5, 67.9][i]} kB │ gzip: ${[29.1, 44.0, 20.3, 45.6, 25.2, 18.8][i]} kB`,
  ),
  "✓ built in 14.82s",
].join("\n");

export const frontend: SessionScript = {
  id: "1a6b3d9f-5e2c-4a8d-b0f7-c93e2a1d4705",
  cwd: "/home/dev/src/storefront",
  start: "2026-02-17T10:05:00.000Z",
  branch: "feat/checkout-form",
  steps: [
    { u: "The checkout page logs a React hydration warning in production and the delivery date field flickers. Take a look?" },
    bash(
      "grep -rn 'Date.now\\|new Date()' src/checkout | head",
      "src/checkout/DeliveryDate.tsx:14:  const minDate = new Date(Date.now() + 2 * DAY);\nsrc/checkout/Summary.tsx:31:  const year = new Date().getFullYear();",
    ),
    read(
      "/home/dev/src/storefront/src/checkout/DeliveryDate.tsx",
      numbered(
        `export function DeliveryDate({ value, onChange }: Props) {
  const minDate = new Date(Date.now() + 2 * DAY);
  return (
    <input type="date" min={toIso(minDate)} value={value} onChange={(e) => onChange(e.target.value)} />
  );
}`,
        13,
      ),
    ),
    {
      a: "The server renders minDate from its own clock and time zone (UTC) while the browser computes it again in the customer's zone, so around midnight the min attribute differs between server HTML and client render. That mismatch is the hydration warning, and React re-rendering the input is the flicker.",
    },
    { u: "how do we fix it without turning off SSR for the page" },
    {
      think:
        "Options: compute minDate on the server and pass it as a prop (serialized), or render the field only after mount with useEffect. Passing from the server keeps SSR and one source of truth; the cutoff is a business rule anyway (orders before 14:00 Berlin time ship next day).",
      a: "Compute the earliest delivery date once on the server in the shop's time zone (Europe/Berlin, since the warehouse cutoff is 14:00 local) and pass it down as a prop, so server and client render the same string. That also moves the cutoff rule out of the component.",
    },
    edit(
      "/home/dev/src/storefront/src/checkout/DeliveryDate.tsx",
      "export function DeliveryDate({ value, onChange }: Props) {\n  const minDate = new Date(Date.now() + 2 * DAY);",
      "export function DeliveryDate({ value, onChange, earliestDelivery }: Props) {\n  // From the server (warehouse cutoff in Europe/Berlin): the same string on both renders.\n  const minDate = earliestDelivery;",
    ),
    edit(
      "/home/dev/src/storefront/src/checkout/page.server.ts",
      "return { cart, addresses };",
      'return { cart, addresses, earliestDelivery: earliestDeliveryDate(new Date(), { zone: "Europe/Berlin", cutoffHour: 14 }) };',
    ),
    { u: "Safari users also say the date picker shows a text box" },
    {
      a: "Safari before 14.1 on macOS has no native date picker for input type=date and shows a plain text field. Our analytics show 3.8% of checkout sessions on such versions; rather than a polyfill I'd accept typed dates in ISO and German formats and validate them, which keeps the bundle small.",
    },
    edit(
      "/home/dev/src/storefront/src/checkout/parseDate.ts",
      "",
      "/** Typed dates where no picker exists: 2026-03-01 or 01.03.2026. */\nexport function parseTypedDate(s: string): string | undefined {\n  const iso = /^(\\d{4})-(\\d{2})-(\\d{2})$/.exec(s);\n  if (iso) return s;\n  const de = /^(\\d{2})\\.(\\d{2})\\.(\\d{4})$/.exec(s);\n  return de ? `${de[3]}-${de[2]}-${de[1]}` : undefined;\n}",
    ),
    { u: "while at it, the bundle feels huge. can you check what's big" },
    bash("npx vite build", buildStats, "Production build with sizes"),
    grep('from "lodash"', "src", 'src/checkout/Summary.tsx:2:import _ from "lodash";\nsrc/account/Orders.tsx:3:import { groupBy } from "lodash";'),
    {
      a: "vendor-lodash is 71.5 kB because Summary.tsx imports the whole library as _ for one debounce. Switching to per-method imports from lodash-es lets the bundler drop the rest.",
    },
    edit("/home/dev/src/storefront/src/checkout/Summary.tsx", 'import _ from "lodash";', 'import debounce from "lodash-es/debounce";'),
    edit("/home/dev/src/storefront/src/account/Orders.tsx", 'import { groupBy } from "lodash";', 'import groupBy from "lodash-es/groupBy";'),
    bash("npx vite build | grep lodash", "dist/assets/vendor-lodash-1b2c3d.js   4.1 kB │ gzip: 1.9 kB"),
    { a: "vendor-lodash went from 71.5 kB to 4.1 kB. The date library chunk (67.9 kB) is next: we only use format and addDays from it." },
  ],
};

const flaky = Array.from(
  { length: 30 },
  (_, i) =>
    `  ${i === 17 ? "✘" : "✓"}  [chromium] › cart.spec.ts:${40 + i * 3}:5 › cart › ${["adds item", "removes item", "applies coupon", "updates quantity", "shows totals"][i % 5]} #${i} (${(1.2 + (i % 7) * 0.4).toFixed(1)}s)`,
).join("\n");

export const ciPipeline: SessionScript = {
  id: "7d4c2b8e-9f1a-4e6d-a3b5-8e0f1c6d2706",
  cwd: "/home/dev/src/storefront",
  start: "2026-02-24T13:30:00.000Z",
  branch: "ci/speedup",
  steps: [
    { u: "CI takes 22 minutes and the e2e job fails randomly maybe one run in five. Let's fix both." },
    read(
      "/home/dev/src/storefront/.github/workflows/ci.yml",
      numbered(`jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 18 }
      - uses: actions/cache@v4
        with:
          path: ~/.npm
          key: npm-\${{ runner.os }}
      - run: npm ci
      - run: npm test
      - run: npx playwright install --with-deps
      - run: npx playwright test`),
    ),
    {
      think:
        "Cache key has no lockfile hash, so it never invalidates and restores a stale cache, then npm ci downloads everything anyway. Playwright browsers are downloaded every run (~2 min). Tests run serially in one job.",
    },
    {
      a: "Three things stand out: the npm cache key never changes (no hash of package-lock.json), so it restores a stale cache; Playwright browsers are installed on every run; and all e2e specs run in one job. I'll key the cache on the lockfile hash, cache ~/.cache/ms-playwright, and shard e2e over 4 runners.",
    },
    edit(
      "/home/dev/src/storefront/.github/workflows/ci.yml",
      "          key: npm-${{ runner.os }}",
      "          key: npm-${{ runner.os }}-${{ hashFiles('package-lock.json') }}\n          restore-keys: npm-${{ runner.os }}-",
    ),
    edit(
      "/home/dev/src/storefront/.github/workflows/ci.yml",
      "      - run: npx playwright test",
      "      - run: npx playwright test --shard=${{ matrix.shard }}/4\n    strategy:\n      matrix:\n        shard: [1, 2, 3, 4]",
    ),
    { u: "and the flaky one?" },
    bash(
      "gh run view 8841203311 --log-failed | tail -n 45",
      `${flaky}\n\n  1) [chromium] › cart.spec.ts:91:5 › cart › updates quantity #17\n\n    Error: expect(locator).toHaveText(expected)\n    Expected string: "€39.80"\n    Received string: "€19.90"\n    Call log:\n      - waiting for getByTestId('cart-total')\n\n  1 failed\n  29 passed (2.4m)`,
    ),
    {
      think:
        "The test clicks + then immediately reads the total; the total updates after a debounced PATCH. toHaveText retries up to the expect timeout of 5s, so it should wait... unless the debounce is 300ms and the API mock responds slowly under load. Let me check the spec.",
    },
    read(
      "/home/dev/src/storefront/e2e/cart.spec.ts",
      numbered(
        `test("updates quantity", async ({ page }) => {
  await page.getByRole("button", { name: "+" }).click();
  const total = await page.getByTestId("cart-total").textContent();
  expect(total).toBe("€39.80");
});`,
        88,
      ),
    ),
    {
      a: "The spec reads textContent once right after the click instead of using a web-first assertion, so it races the debounced cart update. Replacing it with await expect(locator).toHaveText() lets Playwright retry until the total changes. I'm not adding test retries: we agreed retries hide real races.",
    },
    edit(
      "/home/dev/src/storefront/e2e/cart.spec.ts",
      '  const total = await page.getByTestId("cart-total").textContent();\n  expect(total).toBe("€39.80");',
      '  await expect(page.getByTestId("cart-total")).toHaveText("€39.80");',
    ),
    bash("npx playwright test e2e/cart.spec.ts --repeat-each=50 --workers=4", "Running 1500 tests using 4 workers\n\n  1500 passed (6.1m)"),
    { u: "should we also move to node 20?" },
    {
      a: "Yes: Node 18 reaches end of life in April 2025 and setup-node already warns. I'll switch to node-version-file: .nvmrc so CI and local dev read one version, and set .nvmrc to 20.11.1.",
    },
    edit("/home/dev/src/storefront/.github/workflows/ci.yml", "        with: { node-version: 18 }", "        with: { node-version-file: .nvmrc }"),
    bash(
      "echo 20.11.1 > .nvmrc && git add .nvmrc .github e2e && git commit -m 'ci: lockfile cache key, playwright shards, node 20; fix racy cart spec'",
      "[ci/speedup 91ab2c7] ci: lockfile cache key, playwright shards, node 20; fix racy cart spec\n 3 files changed, 12 insertions(+), 5 deletions(-)\n create mode 100644 .nvmrc",
    ),
    bash(
      "gh run watch --exit-status",
      "✓ ci/speedup CI · 8841290077\nTriggered via push about 8 minutes ago\n\nJOBS\n✓ test in 3m02s\n✓ e2e (1) in 4m40s\n✓ e2e (2) in 4m18s\n✓ e2e (3) in 4m51s\n✓ e2e (4) in 4m07s",
    ),
    { a: "The whole pipeline now finishes in 7 minutes 53 seconds instead of 22 minutes." },
  ],
};

export const japanesePayments: SessionScript = {
  id: "3e9f1a7c-2b6d-4c8e-9d0a-5f4b3c2e1707",
  cwd: "/home/tanaka/src/kessai-gateway",
  start: "2026-03-02T01:15:00.000Z",
  branch: "fix/webhook-signature",
  steps: [
    { u: "決済サービスからの Webhook がすべて署名検証エラーになっています。昨日 Express を 5 に上げてからです。調べてもらえますか？" },
    bash(
      "grep -n 'signature' logs/app.log | tail -n 5",
      "2026-03-02T00:58:11Z ERROR webhook signature mismatch event=evt_3P2x provider=payjp\n2026-03-02T01:02:40Z ERROR webhook signature mismatch event=evt_3P2y provider=payjp\n2026-03-02T01:07:09Z ERROR webhook signature mismatch event=evt_3P2z provider=payjp",
    ),
    read(
      "/home/tanaka/src/kessai-gateway/src/app.ts",
      numbered(`const app = express();
app.use(express.json());
app.post("/webhooks/payjp", verifySignature, handleWebhook);`),
    ),
    {
      think:
        "express.json() runs before the webhook route, so the handler sees a re-serialized body; the HMAC must be computed over the raw bytes. In Express 4 the old code probably used a verify callback to keep rawBody; the upgrade rewrote app.ts.",
    },
    {
      a: "原因は、署名の検証が生のリクエストボディではなく、express.json() でパースした後に再シリアライズした JSON に対して行われていることです。HMAC はバイト列が一文字でも違えば一致しません。Webhook のルートだけ express.raw() を使い、生のボディで署名を検証するように直します。",
    },
    edit(
      "/home/tanaka/src/kessai-gateway/src/app.ts",
      'app.use(express.json());\napp.post("/webhooks/payjp", verifySignature, handleWebhook);',
      '// 署名は生のボディで検証する（JSON パース前）\napp.post("/webhooks/payjp", express.raw({ type: "application/json" }), verifySignature, handleWebhook);\napp.use(express.json());',
    ),
    bash(
      "npm test -- webhook",
      "> kessai-gateway@1.4.0 test\n> jest webhook\n\nPASS test/webhook.test.ts\n  webhook\n    ✓ 正しい署名を受け入れる (12 ms)\n    ✓ 改ざんされたボディを拒否する (3 ms)\n    ✓ 古いタイムスタンプを拒否する (2 ms)\n\nTests: 3 passed, 3 total",
    ),
    { u: "ありがとうございます。失敗した Webhook は再送されますか？" },
    {
      a: "PAY.JP は失敗した Webhook を最大 3 回、間隔をあけて再送しますが、昨日の 00:30 より前のものは再送期限を過ぎています。取りこぼした決済イベントは管理画面の API から取り直す必要があります。イベント一覧を取得して、未処理のものだけ再投入するスクリプトを書きます。",
    },
    bash(
      "node scripts/replay-events.mjs --since 2026-03-01T15:00:00Z --dry-run",
      "未処理イベント: 37 件\n  charge.succeeded: 31\n  charge.failed: 4\n  subscription.renewed: 2\n(dry-run: 何も送信していません)",
    ),
    { a: "未処理のイベントは 37 件でした（charge.succeeded が 31 件）。dry-run を外して再投入しました。" },
    { u: "もう一つ、管理画面の CSV エクスポートを Excel で開くと文字化けするとお客様から言われています。" },
    read(
      "/home/tanaka/src/kessai-gateway/src/admin/export.ts",
      numbered(`export function exportCsv(res: Response, rows: Row[]) {
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.send(toCsv(rows));
}`),
    ),
    {
      think:
        "Excel on Windows assumes Shift_JIS (CP932) for CSV without a BOM. Options: convert to Shift_JIS with iconv-lite, or prepend a UTF-8 BOM. BOM keeps emoji and rare kanji intact which Shift_JIS cannot encode.",
      a: "Windows の Excel は BOM のない CSV を Shift_JIS として読むため、UTF-8 の CSV が文字化けします。Shift_JIS に変換すると絵文字や一部の漢字（𠮷 など）が表現できないので、UTF-8 のまま先頭に BOM を付ける方針にしました。",
    },
    edit(
      "/home/tanaka/src/kessai-gateway/src/admin/export.ts",
      "  res.send(toCsv(rows));",
      '  // Excel は BOM がないと Shift_JIS とみなす\n  res.send("\\uFEFF" + toCsv(rows));',
    ),
    { u: "了解です。ついでに本番のログに個人情報が出ていないか確認してもらえますか" },
    grep(
      "email|phone|card_number",
      "src",
      'src/webhook/handle.ts:21:  log.info({ event: evt.id, email: evt.data.customer.email }, "webhook received");\nsrc/admin/users.ts:44:  log.debug({ phone: user.phone }, "lookup");',
    ),
    {
      a: "handle.ts の 21 行目で顧客のメールアドレスをそのまま info ログに出していました。メールアドレスはハッシュ化した customer_ref に置き換え、users.ts の電話番号の debug ログは削除しました。",
    },
    edit(
      "/home/tanaka/src/kessai-gateway/src/webhook/handle.ts",
      '  log.info({ event: evt.id, email: evt.data.customer.email }, "webhook received");',
      '  log.info({ event: evt.id, customer_ref: hashRef(evt.data.customer.id) }, "webhook received");',
    ),
  ],
};
