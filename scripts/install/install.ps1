#!/usr/bin/env pwsh
# Installs zerodb: downloads the release binary for this machine, checks it
# against the release's SHA256SUMS, and puts it in ~\.local\bin (or the
# folder given) as zerodb.exe. The PowerShell twin of install.sh.
#
#   irm https://github.com/zerodb/zerodb/releases/latest/download/install.ps1 | iex
#   & ([scriptblock]::Create((irm .../install.ps1))) -InstallDir C:\tools\bin
#
# Parameters (each also an environment variable, the only way under `| iex`):
#   -InstallDir DIR   ZERODB_INSTALL_DIR   where to put zerodb (default ~\.local\bin, created if missing)
#   -ReleaseUrl URL   ZERODB_RELEASE_URL   the release folder to download from
#                                          (default https://github.com/zerodb/zerodb/releases/latest/download)
#   -Target NAME      ZERODB_TARGET        the binary to take (windows-x64, linux-x64, ...) instead of detecting it
#
# Windows PowerShell 5.1 and PowerShell 7 on Windows, Linux and macOS. Errors
# are thrown, never `exit`ed, inside the function: under `| iex` an exit
# would close the user's own shell.

param(
  [string]$InstallDir = $env:ZERODB_INSTALL_DIR,
  [string]$ReleaseUrl = $env:ZERODB_RELEASE_URL,
  [string]$Target = $env:ZERODB_TARGET
)

function Install-ZeroDb {
  param([string]$InstallDir, [string]$ReleaseUrl, [string]$Target)
  $ErrorActionPreference = 'Stop'
  # Windows PowerShell redraws its progress bar per chunk, which makes a 100 MiB download crawl.
  $ProgressPreference = 'SilentlyContinue'
  if ($PSVersionTable.PSVersion.Major -lt 6) {
    # Windows PowerShell 5.1 may default to TLS 1.0, which GitHub refuses.
    [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
  }
  $onWindows = $env:OS -eq 'Windows_NT'

  if (-not $ReleaseUrl) { $ReleaseUrl = 'https://github.com/zerodb/zerodb/releases/latest/download' }
  $ReleaseUrl = $ReleaseUrl.TrimEnd('/')
  if (-not $InstallDir) { $InstallDir = Join-Path (Join-Path $HOME '.local') 'bin' }
  # Relative to PowerShell's current location (not the process's), with ~ expanded.
  $InstallDir = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($InstallDir)
  if (-not $Target) { $Target = Get-ZeroDbTarget -OnWindows $onWindows }

  # The release's file names, as scripts/release.ts writes them.
  switch ($Target) {
    'windows-x64' { $asset = 'zerodb-windows-x64.exe'; $name = 'zerodb.exe' }
    { $_ -in 'linux-x64', 'linux-arm64', 'linux-x64-musl', 'darwin-x64', 'darwin-arm64' } { $asset = "zerodb-$Target"; $name = 'zerodb' }
    default { throw "unknown target '$Target' (windows-x64, linux-x64, linux-arm64, linux-x64-musl, darwin-x64, darwin-arm64)" }
  }

  # Downloads land in a private temporary folder first: nothing reaches the
  # install folder until its checksum matched.
  $tmp = Join-Path ([IO.Path]::GetTempPath()) ("zerodb-install-" + [guid]::NewGuid().ToString('N'))
  New-Item -ItemType Directory -Path $tmp | Out-Null
  $part = $null
  try {
    Write-Host "Downloading $asset from $ReleaseUrl"
    $download = Join-Path $tmp $asset
    $sumsFile = Join-Path $tmp 'SHA256SUMS'
    foreach ($pair in @(@("$ReleaseUrl/$asset", $download), @("$ReleaseUrl/SHA256SUMS", $sumsFile))) {
      try {
        Invoke-WebRequest -Uri $pair[0] -OutFile $pair[1] -UseBasicParsing
      } catch {
        throw "could not download $($pair[0]): $($_.Exception.Message)"
      }
    }

    # `sha256sum` writes "<hex>  <name>" (or "<hex> *<name>" in binary mode).
    $expected = $null
    foreach ($line in Get-Content -LiteralPath $sumsFile) {
      $fields = $line.Trim() -split '\s+', 2
      if ($fields.Count -eq 2 -and $fields[1].TrimStart('*') -eq $asset) { $expected = $fields[0].ToLowerInvariant(); break }
    }
    if (-not $expected) { throw "SHA256SUMS at $ReleaseUrl lists no $asset; nothing was installed" }
    $actual = (Get-FileHash -LiteralPath $download -Algorithm SHA256).Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
      throw "checksum mismatch for ${asset}: SHA256SUMS says $expected, the download is $actual; nothing was installed"
    }
    Write-Host "Checked $asset against SHA256SUMS: $actual"

    New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
    # Copied beside the old binary and renamed over it, so no reader ever
    # sees half a binary; the name keeps .exe last so Windows will run it.
    $part = Join-Path $InstallDir ".zerodb-install-$PID-$name"
    Copy-Item -LiteralPath $download -Destination $part
    if (-not $onWindows) { & chmod 755 $part }
    # Run once before it replaces anything: a binary that cannot start here is refused, not installed.
    $version = $null
    try {
      # In a child scope with Continue: Windows PowerShell 5.1 turns any stderr line into a terminating error under Stop.
      $version = (& { $ErrorActionPreference = 'Continue'; & $part --version 2>&1 | Out-String }).Trim()
      $ran = $LASTEXITCODE -eq 0
    } catch {
      $version = $_.Exception.Message
      $ran = $false
    }
    if (-not $ran) { throw "the downloaded zerodb does not run on this machine: $version; nothing was installed" }

    $dest = Join-Path $InstallDir $name
    if ($onWindows -and (Test-Path -LiteralPath $dest)) {
      # Windows will not replace a running .exe (an agent harness's MCP
      # server), but it will rename one: the old file steps aside and is
      # deleted now or, if still running, by the next install.
      $old = "$dest.old"
      Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue
      Move-Item -LiteralPath $dest -Destination $old -Force
    }
    Move-Item -LiteralPath $part -Destination $dest -Force
    $part = $null
    if ($onWindows) { Remove-Item -LiteralPath "$dest.old" -Force -ErrorAction SilentlyContinue }
    Write-Host "Installed $version to $dest"

    $sep = [IO.Path]::PathSeparator
    $onPath = @($env:PATH -split [regex]::Escape($sep) | Where-Object { $_ -and ($_.TrimEnd('\', '/') -eq $InstallDir.TrimEnd('\', '/')) }).Count -gt 0
    if (-not $onPath) {
      Write-Host ""
      Write-Host "$InstallDir is not on your PATH yet. To run zerodb by name, add it for this shell and the next ones:"
      if ($onWindows) {
        Write-Host "  `$env:Path = '$InstallDir;' + `$env:Path"
        Write-Host "  [Environment]::SetEnvironmentVariable('Path', '$InstallDir;' + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
      } else {
        Write-Host "  `$env:PATH = '$InstallDir$sep' + `$env:PATH"
        Write-Host "  Add-Content -Path `$PROFILE -Value `"```$env:PATH = '$InstallDir$sep' + ```$env:PATH`""
      }
    }
    Write-Host ""
    Write-Host "Next: zerodb connect (registers zerodb with your agent harnesses), then zerodb doctor."
  } finally {
    if ($part) { Remove-Item -LiteralPath $part -Force -ErrorAction SilentlyContinue }
    Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
  }
}

# The release file suffix for this machine: zerodb-<os>-<arch>[-musl][.exe].
function Get-ZeroDbTarget {
  param([bool]$OnWindows)
  if ($OnWindows) {
    # A 32-bit PowerShell on 64-bit Windows reports x86 here and the real machine in the W6432 variable.
    $arch = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
    switch ($arch) {
      'AMD64' { return 'windows-x64' }
      # Windows 11 on ARM runs x64 programs under emulation; the test run below catches a Windows that does not.
      'ARM64' { return 'windows-x64' }
      default { throw "no zerodb binary for Windows on $arch (only x86-64)" }
    }
  }
  $arch = switch ([Runtime.InteropServices.RuntimeInformation]::OSArchitecture.ToString()) {
    'X64' { 'x64' }
    'Arm64' { 'arm64' }
    default { throw "no zerodb binary for the $_ processor (there are x86-64 and ARM64 builds)" }
  }
  if ($IsMacOS) {
    # A shell under Rosetta on Apple silicon: the native binary is the one to install.
    if ($arch -eq 'x64' -and ((& sysctl -n sysctl.proc_translated 2>$null) -eq '1')) { $arch = 'arm64' }
    return "darwin-$arch"
  }
  if ($IsLinux) {
    # musl's ldd names itself on --version; glibc's says GNU.
    $ldd = try { & { $ErrorActionPreference = 'Continue'; & ldd --version 2>&1 | Out-String } } catch { '' }
    if ($ldd -match 'musl') {
      if ($arch -ne 'x64') { throw "no zerodb binary for musl Linux on $arch (musl is built for x86-64 only)" }
      return 'linux-x64-musl'
    }
    return "linux-$arch"
  }
  throw "no zerodb binary for this system (there are builds for Windows, Linux and macOS)"
}

try {
  Install-ZeroDb -InstallDir $InstallDir -ReleaseUrl $ReleaseUrl -Target $Target
} catch {
  [Console]::Error.WriteLine("zerodb install: $($_.Exception.Message)")
  # Run as a file (-File, .\install.ps1): fail the process. Under `| iex`
  # there is no script path, and exiting would close the user's shell.
  if ($PSCommandPath) { exit 1 }
}
