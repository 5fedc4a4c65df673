@rem What the `cudnnenv` doskey macro runs: use, activate and deactivate
@rem change this cmd session (cudnnenv prints a batch file, this calls it);
@rem everything else is cudnnenv itself. cmd has no prompt hook: after `use`
@rem and `deactivate`, what is selected then is activated at once.
@rem Only ASCII here: cmd reads a batch file in the console's code page, so
@rem what may hold other letters is found when this runs: the store is this
@rem file's folder (%~dp0), cudnnenv as the next line says. Exit code 1 when
@rem cudnnenv failed, and the session is left as it was.
@PROGRAM_LINE@
@if /i "%~1"=="use" goto cudnnenv_shell
@if /i "%~1"=="activate" goto cudnnenv_shell
@if /i "%~1"=="deactivate" goto cudnnenv_shell
@if /i "%~1"=="trust" goto cudnnenv_shell
@if /i "%~1"=="untrust" goto cudnnenv_shell
@"%_CUDNNENV_EXE%" %*
@set "_CUDNNENV_EXE=" & exit /b %errorlevel%
:cudnnenv_shell
@set "_CUDNNENV_SCRIPT=%TEMP%\cudnnenv-%RANDOM%%RANDOM%.bat"
@rem cudnnenv writes the store's path as %_CUDNNENV_ROOT% in what it prints.
@for %%i in ("%~dp0..\..") do @set "_CUDNNENV_ROOT=%%~fi"
@if /i "%~1"=="trust" goto cudnnenv_trust
@if /i "%~1"=="untrust" goto cudnnenv_trust
@rem `__script cmd`: only a batch file on stdout, its first line the marker
@rem below (help and errors go to stderr); a file without it is not called.
@"%_CUDNNENV_EXE%" __script cmd %* > "%_CUDNNENV_SCRIPT%"
@if errorlevel 1 goto cudnnenv_failed
@set "_CUDNNENV_LINE="
@set /p "_CUDNNENV_LINE=" < "%_CUDNNENV_SCRIPT%"
@if not "%_CUDNNENV_LINE%"=="@rem cudnnenv script" goto cudnnenv_done
@call "%_CUDNNENV_SCRIPT%"
@if /i "%~1"=="activate" goto cudnnenv_done
@goto cudnnenv_hook
:cudnnenv_trust
@rem The project's [env] may now apply, or stop applying: the hook looks again.
@"%_CUDNNENV_EXE%" %*
@if errorlevel 1 goto cudnnenv_failed
:cudnnenv_hook
@"%_CUDNNENV_EXE%" __script cmd hook > "%_CUDNNENV_SCRIPT%"
@if errorlevel 1 goto cudnnenv_failed
@call "%_CUDNNENV_SCRIPT%"
:cudnnenv_done
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_EXE=" & set "_CUDNNENV_LINE="
@exit /b 0
:cudnnenv_failed
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_EXE=" & set "_CUDNNENV_LINE="
@exit /b 1
