# cudnnenv completion for fish. cudnnenv itself answers: `cudnnenv
# __complete --current=WORD -- WORDS BEFORE IT` prints one candidate per line,
# in the order to show them (-k keeps it), with a tab and a description as
# fish reads them; files are offered too where a path goes (install, adopt,
# trust, exec).
function __cudnnenv_complete
    set -l words (commandline -opc)
    @PROGRAM@ __complete --current=(commandline -ct) -- $words[2..-1] 2>/dev/null
end
complete -c cudnnenv -k -f -n 'not __fish_seen_subcommand_from install adopt trust untrust exec' -a '(__cudnnenv_complete)'
complete -c cudnnenv -k -n '__fish_seen_subcommand_from install adopt trust untrust exec' -a '(__cudnnenv_complete)'
