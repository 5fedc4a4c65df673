# `cmake --install`, which scripts/release.sh packs.
#
# Linux: the programs find their helpers beside themselves (the probe, the
# download helper, the shim launcher, the LD_AUDIT modules), so all of them
# go into lib/cudnnenv/, and bin/cudnnenv is a link to the one there (the
# program resolves its own path through the link). The completions (asking
# `cudnnenv` on PATH) and the man pages (`cudnnenv __man`) are made from the
# built program: a cross build's under its emulator (qemu for aarch64).
# Windows: one folder with the three programs and the fence DLL, the README, zlib\ and
# selftest\ (the release's .zip).
include(GNUInstallDirs)

if(WIN32)
  install(TARGETS cudnnenv cudnnenv-shim cudnnenv-probe cudnnenv-fence RUNTIME DESTINATION .)
  install(TARGETS zlibwapi RUNTIME DESTINATION zlib)
  # selftest's DLL pair and loader (no import libraries: nothing links to them).
  install(TARGETS ${CUDNNENV_SELFTEST_TARGETS} RUNTIME DESTINATION selftest)
  install(FILES ${CUDNNENV_SELFTEST_FILES} DESTINATION selftest)
  install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION .)
else()
  set(helpers ${CMAKE_INSTALL_LIBDIR}/cudnnenv)
  install(TARGETS cudnnenv cudnnenv-shim cudnnenv-probe cudnnenv-fetch RUNTIME DESTINATION ${helpers})
  install(TARGETS ${CUDNNENV_SELFTEST_TARGETS} RUNTIME DESTINATION ${helpers}/selftest
          LIBRARY DESTINATION ${helpers}/selftest)
  if(TARGET cudnnenv-audit)
    install(TARGETS cudnnenv-audit cudnnenv-audit-report LIBRARY DESTINATION ${helpers})
  endif()
  if(TARGET cudnnenv_spank)
    install(TARGETS cudnnenv_spank LIBRARY DESTINATION ${helpers})
  endif()
  install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/cudnnenv-task-prolog DESTINATION ${helpers})
  foreach(program cudnnenv cudnnenv-task-prolog)
    install(CODE "
      file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
      file(CREATE_LINK \"../${helpers}/${program}\" \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${program}\" SYMBOLIC)")
  endforeach()
  install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/ARCHITECTURE.md
                ${PROJECT_SOURCE_DIR}/docs/cudnn-index.example.tsv DESTINATION ${CMAKE_INSTALL_DOCDIR})

  if(NOT CMAKE_CROSSCOMPILING OR CMAKE_CROSSCOMPILING_EMULATOR)
    # COMMAND cudnnenv: the target, which CMake starts through the emulator when there is one.
    set(generated ${CMAKE_BINARY_DIR}/generated/install)
    set(completions ${generated}/cudnnenv.bash ${generated}/_cudnnenv ${generated}/cudnnenv.fish)
    add_custom_command(
      OUTPUT ${completions}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${generated}
      COMMAND cudnnenv completion bash --command cudnnenv > ${generated}/cudnnenv.bash
      COMMAND cudnnenv completion zsh --command cudnnenv > ${generated}/_cudnnenv
      COMMAND cudnnenv completion fish --command cudnnenv > ${generated}/cudnnenv.fish
      DEPENDS cudnnenv
      COMMENT "Writing the completion scripts")  # not VERBATIM: '>' is the build shell's
    set(install_outputs ${completions})
    # The man pages, written by the program from its own commands and help:
    # cudnnenv.1 and cudnnenv-COMMAND.1 for each command.
    set(man_pages ${generated}/man/cudnnenv.1)
    add_custom_command(
      OUTPUT ${man_pages}
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${generated}/man
      COMMAND cudnnenv __man ${generated}/man
      DEPENDS cudnnenv
      COMMENT "Writing the man pages"
      VERBATIM)
    list(APPEND install_outputs ${man_pages})
    install(DIRECTORY ${generated}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")
    add_custom_target(cudnnenv_install_files ALL DEPENDS ${install_outputs})
    install(FILES ${generated}/cudnnenv.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
            RENAME cudnnenv)
    install(FILES ${generated}/_cudnnenv DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
    install(FILES ${generated}/cudnnenv.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
  endif()
endif()
