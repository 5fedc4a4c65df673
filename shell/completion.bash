# cudnnenv completion for bash. cudnnenv itself answers: `cudnnenv __complete
# --current=WORD -- WORDS BEFORE IT` prints one candidate per line.
_cudnnenv_complete() {
  local current=${COMP_WORDS[COMP_CWORD]}
  mapfile -t COMPREPLY < <(@PROGRAM@ __complete --current="$current" -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)
  # Inserted into the command line as words: a tree named 'a $(id);b' stays one word, and data.
  local i
  for i in "${!COMPREPLY[@]}"; do printf -v 'COMPREPLY[i]' '%q' "${COMPREPLY[i]}"; done
}
complete -o default -F _cudnnenv_complete cudnnenv
