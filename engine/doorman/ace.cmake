# Ace, the code editor of the editor view (npmpackage.cmake): the editor, the file-name-to-mode
# list, two themes and the modes of common languages; a mode the page asks for that is not here
# falls back to plain text.
include(${CMAKE_CURRENT_LIST_DIR}/npmpackage.cmake)
set(ISOLATION_ACE_VERSION 1.45.2)
set(ISOLATION_ACE_FILES ace ext-modelist theme-tomorrow_night theme-github
  mode-c_cpp mode-css mode-dockerfile mode-golang mode-html mode-java mode-javascript mode-json
  mode-makefile mode-markdown mode-php mode-python mode-ruby mode-rust mode-sh mode-sql mode-text
  mode-toml mode-typescript mode-xml mode-yaml)
list(TRANSFORM ISOLATION_ACE_FILES PREPEND package/src-min-noconflict/)
list(TRANSFORM ISOLATION_ACE_FILES APPEND .js)
isolation_npm_package(ace-builds ace-builds ${ISOLATION_ACE_VERSION}
  5260354a14533fa8e94572597b1ff53025b1bb0a9b2e25d50ecf2a01e57aa9e0 ISOLATION_ACE_DIR
  ${ISOLATION_ACE_FILES} package/LICENSE)
