# cudnnenv completion for zsh (needs compinit, as every zsh completion does).
# cudnnenv itself answers: `cudnnenv __complete --current=WORD -- WORDS
# BEFORE IT` prints one candidate per line.
_cudnnenv_complete() {
  local -a candidates
  candidates=("${(@f)$(@PROGRAM@ __complete --current="${words[CURRENT]}" -- "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
  candidates=("${(@)candidates:#}")
  if (( ${#candidates} )); then
    compadd -- "${candidates[@]}"  # quoted by compadd as they go into the line
  else
    _files
  fi
}
(( $+functions[compdef] )) && compdef _cudnnenv_complete cudnnenv
