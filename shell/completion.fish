# cudnnenv completion for fish. cudnnenv itself answers: `cudnnenv
# __complete --current=WORD -- WORDS BEFORE IT` prints one candidate per line;
# files are offered too where a path goes (install, adopt, trust, exec).
function __cudnnenv_complete
    set -l words (commandline -opc)
    @PROGRAM@ __complete --current=(commandline -ct) -- $words[2..-1] 2>/dev/null
end
complete -c cudnnenv -k -f -n 'not __fish_seen_subcommand_from install adopt trust untrust exec' -a '(__cudnnenv_complete)'
complete -c cudnnenv -k -n '__fish_seen_subcommand_from install adopt trust untrust exec' -a '(__cudnnenv_complete)'
