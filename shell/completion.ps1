# cudnnenv completion for PowerShell (Windows PowerShell 5.1 and pwsh 7).
# cudnnenv itself answers: `cudnnenv __complete --current=WORD -- WORDS BEFORE IT`
# prints one candidate per line, in UTF-8 and in the order to show them, each
# perhaps followed by a tab and a description (the tooltip).
Register-ArgumentCompleter -Native -CommandName 'cudnnenv', 'cudnnenv.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # The words before the one being completed, the program's name left out,
    # as the program would receive them (a quoted word without its quotes).
    $words = @(foreach ($element in @($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($element.Extent.EndOffset -ge $cursorPosition) { break }
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) {
            $element.Value
        } else {
            $element.Extent.Text
        }
    })
    $encoding = [Console]::OutputEncoding
    try {
        [Console]::OutputEncoding = [Text.Encoding]::UTF8
        # '--' quoted: PowerShell drops a bare -- before a native program.
        $candidates = @(& @PROGRAM@ __complete "--current=$wordToComplete" '--' @words 2>$null)
    } finally {
        [Console]::OutputEncoding = $encoding
    }
    foreach ($line in $candidates) {
        $value, $description = $line -split "`t", 2
        if (-not $description) { $description = $value }
        # Inserted into the command line: a name with anything but letters,
        # digits and . _ - + goes in single quotes, its quotes doubled (the
        # typographic ones too, which PowerShell also reads as quotes).
        $text = $value
        if ($text -notmatch '^[\w.+-]+$') {
            $text = "'" + ($text -replace '([''\u2018\u2019\u201A\u201B])', '$1$1') + "'"
        }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $description)
    }
}
