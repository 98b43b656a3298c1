/**
 * Issue 17: the release's install.sh, run for real with /bin/sh against a
 * release folder served from 127.0.0.1 (fake binaries named as
 * scripts/release.ts names them, and their SHA256SUMS), in an empty home.
 * Which machine it is comes from fake `uname`, `ldd` and `sysctl` put first
 * on PATH, so every platform's choice is checked on this one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TARGETS, binaryName } from "../../scripts/release.ts";
import { type RunResult, tempDir } from "../helpers.ts";

const INSTALL_DIR = resolve(import.meta.dir, "..", "..", "scripts", "install");
const BASE_PATH = "/usr/local/bin:/usr/bin:/bin";
const root = tempDir("zerodb-install-release-");
afterAll(() => root[Symbol.dispose]());

/** A stand-in binary: prints its version, which release file it is, and its arguments. */
function fakeBinary(version: string, asset: string): string {
  return `#!/bin/sh\necho "zerodb ${version} (${asset})" "$@"\n`;
}

/**
 * Writes a release folder (the six fake binaries, SHA256SUMS, install.sh)
 * for `version`; `corrupt` names an asset whose checksum line is wrong.
 */
function writeRelease(version: string, opts: { corrupt?: string; binary?: (asset: string) => string; omit?: string } = {}): string {
  const dir = join(root.path, `${version}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const sums: string[] = [];
  for (const asset of TARGETS.map(binaryName)) {
    const body = (opts.binary ?? ((a) => fakeBinary(version, a)))(asset);
    writeFileSync(join(dir, asset), body);
    const hex = new Bun.CryptoHasher("sha256").update(opts.corrupt === asset ? `${body}tampered` : body).digest("hex");
    if (opts.omit !== asset) sums.push(`${hex}  ${asset}\n`);
  }
  writeFileSync(join(dir, "SHA256SUMS"), sums.join(""));
  copyFileSync(join(INSTALL_DIR, "install.sh"), join(dir, "install.sh"));
  return dir;
}

/** A loopback server for whichever release folder `serving.dir` is, logging each path asked for. */
const serving = { dir: "", asked: [] as string[] };
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
    serving.asked.push(name);
    const file = join(serving.dir, name);
    return !name.includes("/") && existsSync(file) ? new Response(Bun.file(file)) : new Response("not found", { status: 404 });
  },
});
afterAll(() => server.stop(true));
const URL_BASE = `http://127.0.0.1:${server.port}`;

/** A folder of fake `uname`, `ldd` and `sysctl` describing a machine, to put first on PATH. */
function fakeMachine(m: { os: string; arch: string; ldd?: string; translated?: string }): string {
  const dir = join(root.path, `machine-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const tool = (name: string, body: string) => writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  tool("uname", `case "$1" in -s) echo '${m.os}' ;; -m) echo '${m.arch}' ;; *) echo '${m.os}' ;; esac`);
  // musl's ldd prints its banner on stderr and exits 1; glibc's on stdout.
  tool("ldd", m.ldd === "musl" ? `echo 'musl libc (x86_64)' >&2; echo 'Version 1.2.5' >&2; exit 1` : `echo 'ldd (GNU libc) 2.36'`);
  if (m.translated !== undefined) tool("sysctl", `echo ${m.translated}`);
  return dir;
}

const LINUX_X64 = { os: "Linux", arch: "x86_64" };

/** Runs `sh install.sh ARGS` in `home` with the release at URL_BASE, a private TMPDIR, and the machine `m`. */
async function install(opts: {
  home: string;
  machine?: typeof LINUX_X64 & { ldd?: string; translated?: string };
  args?: string[];
  env?: Record<string, string>;
}) {
  const tmp = join(opts.home, ".tmp");
  mkdirSync(tmp, { recursive: true });
  const path = `${fakeMachine(opts.machine ?? LINUX_X64)}:${BASE_PATH}`;
  const p = Bun.spawn(["/bin/sh", join(INSTALL_DIR, "install.sh"), ...(opts.args ?? [])], {
    cwd: opts.home,
    env: { HOME: opts.home, PATH: path, SHELL: "/bin/bash", TMPDIR: tmp, ZERODB_RELEASE_URL: URL_BASE, ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  // The script's own temporary folder is gone, whatever happened.
  expect(readdirSync(tmp)).toEqual([]);
  return { code, stdout, stderr } satisfies RunResult;
}

/** Runs an installed binary. */
function runInstalled(file: string, ...args: string[]): RunResult {
  const p = Bun.spawnSync([file, ...args], { stdin: "ignore" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

function sha256(file: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex");
}

describe("install.sh", () => {
  test("into an empty home: creates ~/.local/bin, installs the checked binary executable, and says how to put it on PATH", async () => {
    serving.dir = writeRelease("1.0.0");
    serving.asked = [];
    using home = tempDir("zerodb-install-home-");
    const r = await install({ home: home.path });
    const bin = join(home.path, ".local", "bin");
    const hex = sha256(join(serving.dir, "zerodb-linux-x64"));
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        `Downloading zerodb-linux-x64 from ${URL_BASE}`,
        `Checked zerodb-linux-x64 against SHA256SUMS: ${hex}`,
        `Installed zerodb 1.0.0 (zerodb-linux-x64) --version to ${bin}/zerodb`,
        "",
        `${bin} is not on your PATH yet. To run zerodb by name, add it for this shell and the next ones:`,
        `  export PATH="$HOME/.local/bin:$PATH"`,
        `  echo 'export PATH="$HOME/.local/bin:$PATH"' >> ~/.bashrc`,
        "",
        "Next: zerodb connect (registers zerodb with your agent harnesses), then zerodb doctor.",
        "",
      ].join("\n"),
    });
    expect(serving.asked).toEqual(["zerodb-linux-x64", "SHA256SUMS"]);
    expect(readdirSync(bin)).toEqual(["zerodb"]);
    expect(statSync(join(bin, "zerodb")).mode & 0o777).toBe(0o755);
    expect(runInstalled(join(bin, "zerodb"), "hello")).toEqual({ code: 0, stdout: "zerodb 1.0.0 (zerodb-linux-x64) hello\n", stderr: "" });
    // The advice works as printed: after its export line, `zerodb` is found by name.
    const exportLine = r.stdout.split("\n").find((l) => l.startsWith("  export PATH="))!;
    const viaPath = Bun.spawnSync(["/bin/sh", "-c", `${exportLine}\nzerodb hello`], { env: { HOME: home.path, PATH: BASE_PATH } });
    expect({ code: viaPath.exitCode, stdout: viaPath.stdout.toString() }).toEqual({ code: 0, stdout: "zerodb 1.0.0 (zerodb-linux-x64) hello\n" });
  });

  test("as the README runs it, `curl -fsSL <url>/install.sh | sh`", async () => {
    serving.dir = writeRelease("1.0.0");
    using home = tempDir("zerodb-install-home-");
    const p = Bun.spawn(["/bin/sh", "-c", 'curl -fsSL "$ZERODB_RELEASE_URL/install.sh" | sh'], {
      cwd: home.path,
      env: { HOME: home.path, PATH: `${fakeMachine(LINUX_X64)}:${BASE_PATH}`, ZERODB_RELEASE_URL: URL_BASE },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`Installed zerodb 1.0.0 (zerodb-linux-x64) --version to ${home.path}/.local/bin/zerodb`);
    expect(runInstalled(join(home.path, ".local", "bin", "zerodb")).stdout).toBe("zerodb 1.0.0 (zerodb-linux-x64)\n");
  });

  test("picks the release file for each machine, as scripts/release.ts names them", async () => {
    serving.dir = writeRelease("1.0.0");
    const cases = [
      { machine: { os: "Linux", arch: "x86_64" }, asset: "zerodb-linux-x64", file: "zerodb" },
      { machine: { os: "Linux", arch: "aarch64" }, asset: "zerodb-linux-arm64", file: "zerodb" },
      { machine: { os: "Linux", arch: "x86_64", ldd: "musl" }, asset: "zerodb-linux-x64-musl", file: "zerodb" },
      { machine: { os: "Darwin", arch: "arm64" }, asset: "zerodb-darwin-arm64", file: "zerodb" },
      { machine: { os: "Darwin", arch: "x86_64", translated: "0" }, asset: "zerodb-darwin-x64", file: "zerodb" },
      // A shell under Rosetta on Apple silicon: the native binary.
      { machine: { os: "Darwin", arch: "x86_64", translated: "1" }, asset: "zerodb-darwin-arm64", file: "zerodb" },
      { machine: { os: "MINGW64_NT-10.0-19045", arch: "x86_64" }, asset: "zerodb-windows-x64.exe", file: "zerodb.exe" },
    ];
    for (const c of cases) {
      using home = tempDir("zerodb-install-home-");
      const dir = join(home.path, "bin");
      const r = await install({ home: home.path, machine: c.machine, env: { ZERODB_INSTALL_DIR: dir } });
      expect({ machine: c.machine, code: r.code, stderr: r.stderr }).toEqual({ machine: c.machine, code: 0, stderr: "" });
      expect({ machine: c.machine, files: readdirSync(dir), runs: runInstalled(join(dir, c.file)).stdout }).toEqual({
        machine: c.machine,
        files: [c.file],
        runs: `zerodb 1.0.0 (${c.asset})\n`,
      });
    }
    expect(new Set(cases.map((c) => c.asset))).toEqual(new Set(TARGETS.map(binaryName)));
  });

  test("refuses machines there is no binary for, before downloading anything", async () => {
    serving.dir = writeRelease("1.0.0");
    const cases = [
      { machine: { os: "FreeBSD", arch: "amd64" }, says: "no zerodb binary for FreeBSD" },
      { machine: { os: "Linux", arch: "i686" }, says: "no zerodb binary for the i686 processor" },
      { machine: { os: "Linux", arch: "aarch64", ldd: "musl" }, says: "no zerodb binary for musl Linux on arm64" },
    ];
    for (const c of cases) {
      serving.asked = [];
      using home = tempDir("zerodb-install-home-");
      const r = await install({ home: home.path, machine: c.machine });
      expect({ code: r.code, stdout: r.stdout, asked: serving.asked, local: existsSync(join(home.path, ".local")) }).toEqual({
        code: 1,
        stdout: "",
        asked: [],
        local: false,
      });
      expect(r.stderr).toStartWith(`zerodb install: ${c.says}`);
    }
  });

  test("--dir and --target choose the folder and the file; a folder already on PATH gets no PATH advice", async () => {
    serving.dir = writeRelease("1.0.0");
    using home = tempDir("zerodb-install-home-");
    const dir = join(home.path, "tools");
    const r = await install({ home: home.path, args: ["--dir", dir, "--target", "linux-x64-musl"], env: { PATH: `${dir}:${BASE_PATH}` } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toContain(`Installed zerodb 1.0.0 (zerodb-linux-x64-musl) --version to ${dir}/zerodb`);
    expect(r.stdout).not.toContain("not on your PATH");
    expect(readdirSync(dir)).toEqual(["zerodb"]);
  });

  test("a checksum mismatch is refused and nothing is installed", async () => {
    serving.dir = writeRelease("1.0.0", { corrupt: "zerodb-linux-x64" });
    using home = tempDir("zerodb-install-home-");
    const r = await install({ home: home.path });
    expect({ code: r.code, local: existsSync(join(home.path, ".local")) }).toEqual({ code: 1, local: false });
    expect(r.stderr).toStartWith("zerodb install: checksum mismatch for zerodb-linux-x64: SHA256SUMS says ");
    expect(r.stderr).toEndWith("; nothing was installed\n");
  });

  test("a second run replaces the binary cleanly; a bad download after it leaves the installed one untouched", async () => {
    using home = tempDir("zerodb-install-home-");
    const bin = join(home.path, ".local", "bin");
    serving.dir = writeRelease("1.0.0");
    expect((await install({ home: home.path })).code).toBe(0);
    serving.dir = writeRelease("2.0.0");
    const second = await install({ home: home.path });
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readdirSync(bin)).toEqual(["zerodb"]);
    expect(runInstalled(join(bin, "zerodb")).stdout).toBe("zerodb 2.0.0 (zerodb-linux-x64)\n");

    const before = readFileSync(join(bin, "zerodb"));
    for (const bad of [
      { release: writeRelease("3.0.0", { corrupt: "zerodb-linux-x64" }), says: "checksum mismatch for zerodb-linux-x64" },
      { release: writeRelease("3.0.0", { omit: "zerodb-linux-x64" }), says: `SHA256SUMS at ${URL_BASE} lists no zerodb-linux-x64` },
      { release: join(root.path, "missing"), says: `could not download ${URL_BASE}/zerodb-linux-x64` },
      // Checks out but cannot start here (a wrong C library, say): refused too.
      {
        release: writeRelease("3.0.0", { binary: () => "#!/bin/sh\necho 'Illegal instruction' >&2\nexit 132\n" }),
        says: "the downloaded zerodb does not run on this machine: Illegal instruction",
      },
    ]) {
      serving.dir = bad.release;
      const r = await install({ home: home.path });
      expect({ code: r.code, files: readdirSync(bin), same: readFileSync(join(bin, "zerodb")).equals(before) }).toEqual({
        code: 1,
        files: ["zerodb"],
        same: true,
      });
      expect(r.stderr).toContain(`zerodb install: ${bad.says}`);
    }
  });

  test("issue 29 item 6: into a sticky world-writable folder, a planted link is never written through", async () => {
    serving.dir = writeRelease("1.0.0");
    using home = tempDir("zerodb-install-home-");
    const shared = join(home.path, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    // Another user's file the links point at.
    const victim = join(home.path, "victim");
    writeFileSync(victim, "not yours\n", { mode: 0o600 });
    // The names the script could be expected to use: the old stage name (its shell's pid: the
    // wrapper plants it, then execs install.sh under the same pid) and the installed name.
    symlinkSync(victim, join(shared, "zerodb"));
    const tmp = join(home.path, ".tmp");
    mkdirSync(tmp);
    const p = Bun.spawn(["/bin/sh", "-c", 'ln -s "$VICTIM" "$SHARED/.zerodb-install-$$-zerodb" && exec /bin/sh "$SCRIPT" --dir "$SHARED"'], {
      cwd: home.path,
      env: {
        HOME: home.path,
        PATH: `${fakeMachine(LINUX_X64)}:${BASE_PATH}`,
        SHELL: "/bin/bash",
        TMPDIR: tmp,
        ZERODB_RELEASE_URL: URL_BASE,
        VICTIM: victim,
        SHARED: shared,
        SCRIPT: join(INSTALL_DIR, "install.sh"),
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`Installed zerodb 1.0.0 (zerodb-linux-x64) --version to ${shared}/zerodb`);
    // The link's target is untouched: same bytes, same mode.
    expect({ bytes: readFileSync(victim, "utf8"), mode: statSync(victim).mode & 0o7777 }).toEqual({ bytes: "not yours\n", mode: 0o600 });
    // zerodb is a file of its own now (the link at its name replaced, not followed), and runs.
    expect(lstatSync(join(shared, "zerodb")).isFile()).toBe(true);
    expect(runInstalled(join(shared, "zerodb")).stdout).toBe("zerodb 1.0.0 (zerodb-linux-x64)\n");
    // Nothing staged is left; the planted link is left as it was.
    const left = readdirSync(shared).filter((n) => n !== "zerodb");
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.zerodb-install-\d+-zerodb$/);
    expect(lstatSync(join(shared, left[0]!)).isSymbolicLink()).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("issue 29 item 6: a directory at the installed name is refused, nothing moved into it", async () => {
    serving.dir = writeRelease("1.0.0");
    using home = tempDir("zerodb-install-home-");
    const dir = join(home.path, "bin");
    const elsewhere = join(home.path, "elsewhere");
    mkdirSync(dir);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, "zerodb"));
    const r = await install({ home: home.path, args: ["--dir", dir] });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: `zerodb install: ${dir}/zerodb is a directory (or a link to one); nothing was installed\n`,
    });
    expect({ elsewhere: readdirSync(elsewhere), dir: readdirSync(dir) }).toEqual({ elsewhere: [], dir: ["zerodb"] });
  });

  test("issue 29 item 6: a plain-http release URL on another machine is warned about before anything is downloaded", async () => {
    using home = tempDir("zerodb-install-home-");
    // A curl that only logs what it was asked for and fails: no connection is ever made.
    const machine = fakeMachine(LINUX_X64);
    const log = join(home.path, "curl.log");
    writeFileSync(join(machine, "curl"), `#!/bin/sh\nfor a in "$@"; do last=$a; done\necho "$last" >> '${log}'\nexit 7\n`, { mode: 0o755 });
    const run = async (url: string) => {
      const tmp = join(home.path, ".tmp");
      mkdirSync(tmp, { recursive: true });
      const p = Bun.spawn(["/bin/sh", join(INSTALL_DIR, "install.sh"), "--url", url, "--dir", join(home.path, "bin")], {
        env: { HOME: home.path, PATH: `${machine}:${BASE_PATH}`, TMPDIR: tmp },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
      return { code, stderr };
    };
    const warning = (url: string) =>
      `zerodb install: warning: ${url} is plain http: anyone between here and there can swap the binary and its SHA256SUMS together; use an https:// release URL\n`;
    for (const url of ["http://releases.example.com/zerodb", "HTTP://10.0.0.5:8080/r", "http://127.0.0.1.example.com/r", "http://localhost.example.com/r"]) {
      expect(await run(url)).toEqual({ code: 1, stderr: `${warning(url)}zerodb install: could not download ${url}/zerodb-linux-x64\n` });
    }
    for (const url of ["https://releases.example.com/zerodb", "http://127.0.0.1:9/r", "http://localhost:9/r", "http://[::1]:9/r", "http://user@127.0.0.2/r"]) {
      expect(await run(url)).toEqual({ code: 1, stderr: `zerodb install: could not download ${url}/zerodb-linux-x64\n` });
    }
    // The fake curl was all that was asked: once per URL, for the binary.
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(9);
  });

  test("install.sh is POSIX sh: dash and bash --posix parse it", () => {
    for (const shell of [
      ["/bin/sh", "-n"],
      ["bash", "--posix", "-n"],
    ]) {
      const p = Bun.spawnSync([...shell, join(INSTALL_DIR, "install.sh")]);
      expect({ shell, code: p.exitCode, stderr: p.stderr.toString() }).toEqual({ shell, code: 0, stderr: "" });
    }
  });
});

/** Runs install.ps1 with pwsh for a release at URL_BASE, installing into `dir`. */
async function installPs1(pwsh: string, home: string, dir: string): Promise<RunResult> {
  const p = Bun.spawn([pwsh, "-NoProfile", "-NonInteractive", "-File", join(INSTALL_DIR, "install.ps1")], {
    env: { PATH: BASE_PATH, HOME: home, ZERODB_RELEASE_URL: URL_BASE, ZERODB_INSTALL_DIR: dir, ZERODB_TARGET: "linux-x64" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

describe("install.ps1", () => {
  test("installs the checked binary with PowerShell and refuses a checksum mismatch, where pwsh exists", async () => {
    const pwsh = Bun.which("pwsh");
    // The fake binaries are sh scripts: on Windows they would not run.
    if (!pwsh || process.platform === "win32") return console.warn("skipping install.ps1: no pwsh here (it mirrors install.sh, tested above)");
    serving.dir = writeRelease("1.0.0");
    using home = tempDir("zerodb-install-home-");
    const dir = join(home.path, "bin");
    const r = await installPs1(pwsh, home.path, dir);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toContain(`Installed zerodb 1.0.0 (zerodb-linux-x64) --version to ${join(dir, "zerodb")}`);
    expect(readdirSync(dir)).toEqual(["zerodb"]);
    expect(runInstalled(join(dir, "zerodb")).stdout).toBe("zerodb 1.0.0 (zerodb-linux-x64)\n");

    serving.dir = writeRelease("1.0.0", { corrupt: "zerodb-linux-x64" });
    using home2 = tempDir("zerodb-install-home-");
    const bad = await installPs1(pwsh, home2.path, join(home2.path, "bin"));
    expect({ code: bad.code, installed: existsSync(join(home2.path, "bin")) }).toEqual({ code: 1, installed: false });
    expect(bad.stderr).toContain("checksum mismatch for zerodb-linux-x64");
  });
});
