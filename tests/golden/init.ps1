# cudnnenv shell integration for PowerShell (Windows PowerShell 5.1 and pwsh 7),
# printed by `cudnnenv init powershell`. Add to $PROFILE:
#   cudnnenv init powershell | Out-String | Invoke-Expression
# - `cudnnenv use|activate|deactivate` change this session (their output is invoked);
# - the shims folder goes first on PATH;
# - the prompt follows .cudnnenv.toml: when the folder changes, it looks for the
#   nearest project file with Test-Path, and runs cudnnenv only when that file
#   (or CUDNNENV_VERSION) is not the one it saw.
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

function global:cudnnenv {
    if ($args.Count -gt 0 -and @('use', 'activate', 'deactivate') -contains $args[0]) {
        $out = _cudnnenv_run @args
        if ($LASTEXITCODE -ne 0) { return }
        $out | Out-String | Invoke-Expression
        if ($args[0] -eq 'activate') {
            $global:_CUDNNENV_PWD = $PWD.ProviderPath  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
            $global:_CUDNNENV_SEEN = $Env:CUDNNENV_VERSION
        } else {
            # use (--local/--global changed files) or deactivate: what is selected now, at once
            $global:_CUDNNENV_PWD = $null
            $global:_CUDNNENV_PROJECT = $null
            _cudnnenv_hook
        }
    } else {
        & 'C:\Program Files\cudnnenv\cudnnenv.exe' @args
    }
}

function global:_cudnnenv_hook {
    if ($PWD.ProviderPath -eq $global:_CUDNNENV_PWD -and $Env:CUDNNENV_VERSION -eq $global:_CUDNNENV_SEEN) { return }
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
    if ($null -ne $global:_CUDNNENV_PROJECT -and $file -eq $global:_CUDNNENV_PROJECT -and
        $Env:CUDNNENV_VERSION -eq $global:_CUDNNENV_SEEN) { return }
    $global:_CUDNNENV_PROJECT = $file
    $global:_CUDNNENV_SEEN = $Env:CUDNNENV_VERSION
    _cudnnenv_run hook --shell powershell | Out-String | Invoke-Expression
}

if (-not $global:_cudnnenv_prompt) { $global:_cudnnenv_prompt = $function:prompt }
function global:prompt { _cudnnenv_hook; & $global:_cudnnenv_prompt }
_cudnnenv_hook
