// The system OpenSSL's libcrypto (libssl-dev): SHA-256 through the EVP interface, which
// OpenSSL 3 keeps undeprecated. Nothing here is compiled; LocalCloud links libcrypto.so.
#include <openssl/evp.h>
#include <openssl/crypto.h>
