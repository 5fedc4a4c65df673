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
# compinit may come later in ~/.zshrc: without compdef now, try once more at
# the first prompt, and say how to get completion if it is still missing.
_cudnnenv_compdef() {
  if (( $+functions[compdef] )); then
    compdef _cudnnenv_complete cudnnenv
  elif [[ $1 == prompt ]]; then
    print -u2 "cudnnenv: tab completion needs zsh's completion system: add 'autoload -Uz compinit && compinit' to ~/.zshrc"
  fi
  (( $+functions[add-zsh-hook] )) && add-zsh-hook -d precmd _cudnnenv_compdef_prompt
  return 0
}
_cudnnenv_compdef_prompt() { _cudnnenv_compdef prompt; }
if (( $+functions[compdef] )); then
  _cudnnenv_compdef
else
  autoload -Uz add-zsh-hook && add-zsh-hook precmd _cudnnenv_compdef_prompt
fi
