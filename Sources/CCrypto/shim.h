// OpenSSL's libcrypto from Debian (libssl-dev): SHA-256 of downloaded model files.
#include <openssl/evp.h>
