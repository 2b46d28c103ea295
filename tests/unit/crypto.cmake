# Crypto offload (included by tests/CMakeLists.txt): the AES-XTS and key
# unwrap primitives, the firmware's CRYPTO_LOGIN / DEK objects and caps.
smx_unit_test(test_crypto ${CMAKE_CURRENT_LIST_DIR}/test_crypto.c LIBS smx_device)
target_include_directories(test_crypto PRIVATE ${CMAKE_CURRENT_LIST_DIR})
smx_unit_test(test_fw_crypto ${CMAKE_CURRENT_LIST_DIR}/test_fw_crypto.c LIBS smx_device)
target_include_directories(test_fw_crypto PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The provider's API in both DEK import modes (a device configuration).
add_executable(test_mlx5dv_crypto ${CMAKE_CURRENT_LIST_DIR}/test_mlx5dv_crypto.c)
target_link_libraries(test_mlx5dv_crypto PRIVATE ibverbs mlx5 OpenSSL::Crypto)
target_include_directories(test_mlx5dv_crypto PRIVATE ${CMAKE_CURRENT_LIST_DIR})
foreach(mode wrapped plaintext)
  add_test(NAME test_mlx5dv_crypto_${mode} COMMAND test_mlx5dv_crypto)
  set_tests_properties(test_mlx5dv_crypto_${mode} PROPERTIES LABELS unit TIMEOUT 120
                       ENVIRONMENT SOFTMLX5_CRYPTO_MODE=${mode})
endforeach()
# softmlx5 crypto-test-data's JSON against the device (firmware + engine).
add_executable(test_crypto_tool ${CMAKE_CURRENT_LIST_DIR}/test_crypto_tool.c)
target_link_libraries(test_crypto_tool PRIVATE smx_device)
target_include_directories(test_crypto_tool PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME test_crypto_tool COMMAND test_crypto_tool $<TARGET_FILE:softmlx5>)
set_tests_properties(test_crypto_tool PROPERTIES LABELS unit TIMEOUT 120)
# Crypto mkeys on the data path, ciphertext against OpenSSL's AES-XTS
# (plaintext DEKs: no login needed).
add_executable(test_crypto_mkey ${CMAKE_CURRENT_LIST_DIR}/test_crypto_mkey.c)
target_link_libraries(test_crypto_mkey PRIVATE ibverbs mlx5 OpenSSL::Crypto)
target_include_directories(test_crypto_mkey PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME test_crypto_mkey COMMAND test_crypto_mkey)
set_tests_properties(test_crypto_mkey PROPERTIES LABELS unit TIMEOUT 120
                     ENVIRONMENT SOFTMLX5_CRYPTO_MODE=plaintext)
