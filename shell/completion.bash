# cudnnenv completion for bash. cudnnenv itself answers: `cudnnenv __complete
# --current=WORD -- WORDS BEFORE IT` prints one candidate per line, in the
# order to show them, each perhaps followed by a tab and a description (bash
# shows none).
_cudnnenv_complete() {
  local current=${COMP_WORDS[COMP_CWORD]} line
  COMPREPLY=()
  while IFS= read -r line; do
    # Inserted into the command line as words: a tree named 'a $(id);b' stays one word, and data.
    printf -v line '%q' "${line%%$'\t'*}"
    COMPREPLY+=("$line")
  done < <(@PROGRAM@ __complete --current="$current" -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)
}
complete -o default -o nosort -F _cudnnenv_complete cudnnenv
