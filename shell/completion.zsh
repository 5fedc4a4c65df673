# cudnnenv completion for zsh (needs compinit, as every zsh completion does).
# cudnnenv itself answers: `cudnnenv __complete --current=WORD -- WORDS
# BEFORE IT` prints one candidate per line, in the order to show them, each
# perhaps followed by a tab and a description.
_cudnnenv_complete() {
  local -a lines values shown
  local line width=0
  lines=("${(@f)$(@PROGRAM@ __complete --current="${words[CURRENT]}" -- "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
  for line in "${lines[@]}"; do
    [[ -n $line ]] || continue
    values+=("${line%%$'\t'*}")
    (( ${#values[-1]} > width )) && width=${#values[-1]}
  done
  if (( ! ${#values} )); then
    _files
    return
  fi
  for line in "${lines[@]}"; do
    [[ -n $line ]] || continue
    if [[ $line == *$'\t'* ]]; then
      shown+=("${(r:width:)${line%%$'\t'*}}  -- ${line#*$'\t'}")
    else
      shown+=("${line}")
    fi
  done
  # -V: in this order; -l -d: one per line, with its description. Quoted by
  # compadd as they go into the line.
  compadd -V cudnnenv -l -d shown -- "${values[@]}"
}
# compinit may come later in ~/.zshrc: without compdef now, try once more at
# the first prompt, and say how to get completion if it is still missing
# (once: the shells started from this one do not repeat it; and never with
# CUDNNENV_NO_COMPINIT_NOTE=1).
_cudnnenv_compdef() {
  if (( $+functions[compdef] )); then
    compdef _cudnnenv_complete cudnnenv
  elif [[ $1 == prompt && -z $CUDNNENV_NO_COMPINIT_NOTE ]]; then
    print -u2 "cudnnenv: tab completion needs zsh's completion system: add 'autoload -Uz compinit && compinit' to ~/.zshrc (or set CUDNNENV_NO_COMPINIT_NOTE=1 to silence this)"
    export CUDNNENV_NO_COMPINIT_NOTE=1
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
