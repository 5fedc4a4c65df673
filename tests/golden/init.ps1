# cudnnenv shell integration for PowerShell (Windows PowerShell 5.1 and pwsh 7),
# printed by `cudnnenv init powershell`. Add to $PROFILE:
#   cudnnenv init powershell | Out-String | Invoke-Expression
# - `cudnnenv use|activate|deactivate` change this session: the function runs
#   `cudnnenv __script powershell ...`, which prints only a script (help and
#   errors go to stderr), and invokes it only when it starts with cudnnenv's marker;
# - the shims folder goes first on PATH;
# - the prompt follows .cudnnenv.toml: when the folder changes, it looks for the
#   nearest project file with Test-Path; in a project it reads that file to
#   notice an edit; it runs cudnnenv only when the file, its text,
#   CUDNNENV_VERSION, CUDNNENV_ACTIVATED or _CUDNNENV_STATE is not the one it
#   saw (another door, a conda hook, changed what is active).
$Env:CUDNNENV_SHELL = 'powershell'

# cudnnenv writes UTF-8 into a pipe; PowerShell decodes a program's output
# with [Console]::OutputEncoding (the OEM code page by default), so switch it
# for the call: paths with letters outside ASCII arrive intact.
function global:_cudnnenv_run {
    $encoding = [Console]::OutputEncoding
    try {
        [Console]::OutputEncoding = [Text.Encoding]::UTF8
        & 'C:\Program Files\cudnnenv\cudnnenv.exe' @args
    } finally {
        [Console]::OutputEncoding = $encoding
    }
}
if (-not (($Env:PATH -split ';') -contains 'C:\Users\O''Brien\libs\.cudnnenv\shims')) { $Env:PATH = 'C:\Users\O''Brien\libs\.cudnnenv\shims' + ';' + $Env:PATH }

# Invokes what cudnnenv printed when it is marked as a script; writes
# anything else as text. $false when there was no script.
function global:_cudnnenv_eval($out) {
    $text = $out | Out-String
    if ($text.StartsWith('# cudnnenv script')) { $text | Invoke-Expression; return $true }
    if ($text.Trim()) { Write-Host $text }
    return $false
}

# What the hook saw of the session's selection besides the folder.
function global:_cudnnenv_seen { "$Env:CUDNNENV_VERSION|$Env:CUDNNENV_ACTIVATED|$Env:_CUDNNENV_STATE" }

# The project file's text and its lock's (cudnnenv.lock beside it), read by PowerShell itself ('' for what
# cannot be read).
function global:_cudnnenv_read($file) {
    if (-not $file) { return '' }
    $text = try { [IO.File]::ReadAllText($file) } catch { '' }
    $lock = Join-Path ([IO.Path]::GetDirectoryName($file)) 'cudnnenv.lock'
    if ([IO.File]::Exists($lock)) { $text += '|lock|' + $(try { [IO.File]::ReadAllText($lock) } catch { '' }) }
    return $text
}

function global:cudnnenv {
    if ($args.Count -gt 0 -and @('use', 'activate', 'deactivate') -contains $args[0]) {
        $out = _cudnnenv_run __script powershell @args
        if ($LASTEXITCODE -ne 0) { return }
        if (-not (_cudnnenv_eval $out)) { return }  # --help: nothing changes
        if ($args[0] -eq 'activate') {
            $global:_CUDNNENV_PWD = $PWD.ProviderPath  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
            $global:_CUDNNENV_SEEN = _cudnnenv_seen
        } else {
            # use (--local/--global changed files) or deactivate: what is selected now, at once
            $global:_CUDNNENV_PWD = $null
            $global:_CUDNNENV_PROJECT = $null
            _cudnnenv_hook
        }
    } elseif ($args.Count -gt 0 -and @('trust', 'untrust', 'install', 'adopt', 'remove', 'sync') -contains $args[0]) {
        # The project's [env] may now apply, or stop applying; a tree or a runtime came or went: the hook
        # looks again.
        & 'C:\Program Files\cudnnenv\cudnnenv.exe' @args
        if ($LASTEXITCODE -ne 0) { return }
        $global:_CUDNNENV_PWD = $null
        $global:_CUDNNENV_PROJECT = $null
        _cudnnenv_hook
    } else {
        & 'C:\Program Files\cudnnenv\cudnnenv.exe' @args
    }
}

function global:_cudnnenv_hook {
    if ($PWD.ProviderPath -eq $global:_CUDNNENV_PWD -and (_cudnnenv_seen) -eq $global:_CUDNNENV_SEEN) {
        if (-not $global:_CUDNNENV_PROJECT) { return }
        if ((_cudnnenv_read $global:_CUDNNENV_PROJECT) -ceq $global:_CUDNNENV_TEXT) { return }
    }
    $global:_CUDNNENV_PWD = $PWD.ProviderPath
    $dir = $PWD.ProviderPath
    $file = ''
    while ($dir) {
        $candidate = Join-Path $dir '.cudnnenv.toml'
        if (Test-Path -LiteralPath $candidate -PathType Leaf) { $file = $candidate; break }
        $parent = Split-Path -Parent $dir
        if (-not $parent -or $parent -eq $dir) { break }
        $dir = $parent
    }
    $text = _cudnnenv_read $file
    if ($null -ne $global:_CUDNNENV_PROJECT -and $file -eq $global:_CUDNNENV_PROJECT -and
        $text -ceq $global:_CUDNNENV_TEXT -and (_cudnnenv_seen) -eq $global:_CUDNNENV_SEEN) { return }
    $global:_CUDNNENV_PROJECT = $file
    $global:_CUDNNENV_TEXT = $text
    $null = _cudnnenv_eval (_cudnnenv_run __script powershell hook)
    $global:_CUDNNENV_SEEN = _cudnnenv_seen
}

if (-not $global:_cudnnenv_prompt) { $global:_cudnnenv_prompt = $function:prompt }
function global:prompt { _cudnnenv_hook; & $global:_cudnnenv_prompt }
_cudnnenv_hook
