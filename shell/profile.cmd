@ABOUT@
@rem Only ASCII here: cmd reads a batch file in the console's code page.
@rem Exit code 1 when cudnnenv failed.
@PROGRAM_LINE@
@set "_CUDNNENV_SCRIPT=%TEMP%\cudnnenv-%RANDOM%%RANDOM%.bat"
@FIND_LINES@
@"%_CUDNNENV_EXE%" --root "%_CUDNNENV_ROOT%" @COMMAND@ --shell cmd > "%_CUDNNENV_SCRIPT%"
@if errorlevel 1 goto cudnnenv_failed
@call "%_CUDNNENV_SCRIPT%"
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_PROFILE=" & set "_CUDNNENV_EXE="
@exit /b 0
:cudnnenv_failed
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_PROFILE=" & set "_CUDNNENV_EXE="
@exit /b 1
