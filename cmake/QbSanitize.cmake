# QB_SANITIZE=address,undefined or QB_SANITIZE=thread: every target built with those sanitizers
# (scripts/test.sh builds build-asan/ and build-tsan/ with them and reruns the tests there).
set(QB_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined | thread | empty")
if(QB_SANITIZE)
  if(QB_SANITIZE MATCHES "thread" AND QB_SANITIZE MATCHES "address")
    message(FATAL_ERROR "QB_SANITIZE: thread cannot be combined with address")
  endif()
  # Frame pointers for readable reports; UBSan findings are errors, not warnings that scroll by.
  add_compile_options(-fsanitize=${QB_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${QB_SANITIZE})
  if(QB_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
