// OpenSSL's libcrypto (Debian's libssl-dev): AES-256 in counter mode, HMAC-SHA-256, SHA-256
// and the operating system's random bytes, for encrypted realm files.
//
// The helpers below build what Swift cannot spell easily (an OSSL_PARAM list naming the
// digest); everything else is called directly.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

/// An HMAC-SHA-256 context keyed with `key`; NULL if libcrypto fails. `EVP_MAC_init` with a
/// NULL key afterwards starts a new MAC under the same key.
static inline EVP_MAC_CTX *asyncrealm_hmac_sha256_new(const unsigned char *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, key, key_length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/// An AES-256-CTR encryption context keyed with the 32 bytes at `key`; NULL if libcrypto
/// fails. Each message sets its own IV with `EVP_EncryptInit_ex(context, NULL, NULL, NULL, iv)`.
static inline EVP_CIPHER_CTX *asyncrealm_aes256_ctr_new(const unsigned char *key) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), NULL, key, NULL) != 1) {
        EVP_CIPHER_CTX_free(context);
        return NULL;
    }
    return context;
}
