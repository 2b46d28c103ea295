# Data-path engine unit tests (included by tests/CMakeLists.txt).
foreach(t test_engine_unit test_engine_rc test_engine_err test_engine_evt)
  smx_unit_test(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS smx_device)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endforeach()
# The shared segment's process table: liveness, bounded waits (fabric/shm.c).
smx_unit_test(test_shm ${CMAKE_CURRENT_LIST_DIR}/test_shm.c LIBS smx_device)
target_include_directories(test_shm PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The segment on a 64 KiB tmpfs: needs root to mount one (77: skipped).
add_test(NAME test_shm_tmpfs COMMAND test_shm tmpfs)
set_tests_properties(test_shm_tmpfs PROPERTIES LABELS unit TIMEOUT 120
                     SKIP_RETURN_CODE 77)
# The data path's shortcuts against the general path (test_diff_wqe.c):
# every fuzz_wqe input -- the committed corpus and gen_wqe_corpus's seeds,
# written at build time -- with the fast lane, caches, direct placement and
# MMIO doorbells on, then off; same CQEs and memory required.
set(SMX_WQE_SEEDS ${CMAKE_CURRENT_BINARY_DIR}/wqe-seeds)
add_executable(gen_wqe_seeds ${CMAKE_CURRENT_LIST_DIR}/../fuzz/gen_wqe_corpus.c)
target_include_directories(gen_wqe_seeds PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_custom_command(OUTPUT ${SMX_WQE_SEEDS}/wqe-write-send
                   COMMAND ${CMAKE_COMMAND} -E remove_directory ${SMX_WQE_SEEDS}
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${SMX_WQE_SEEDS}
                   COMMAND gen_wqe_seeds ${SMX_WQE_SEEDS}
                   DEPENDS gen_wqe_seeds VERBATIM)
add_custom_target(wqe_seeds ALL DEPENDS ${SMX_WQE_SEEDS}/wqe-write-send)
smx_unit_test(test_diff_wqe ${CMAKE_CURRENT_LIST_DIR}/test_diff_wqe.c
  LIBS smx_device)
target_include_directories(test_diff_wqe PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                           ${CMAKE_CURRENT_LIST_DIR}/../fuzz)
target_compile_definitions(test_diff_wqe PRIVATE
  SMX_WQE_CORPUS="${CMAKE_CURRENT_LIST_DIR}/../fuzz/corpus-wqe"
  SMX_WQE_SEEDS="${SMX_WQE_SEEDS}")
add_dependencies(test_diff_wqe wqe_seeds)
