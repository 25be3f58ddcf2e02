#ifndef HEARTH_COPENSSL_SHIM_H
#define HEARTH_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

/* BIO_get_mem_data is a macro over BIO_ctrl; Swift cannot call macros. */
static inline long hearth_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/* EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *hearth_EVP_RSA_gen(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}
/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen; P-256 is the only curve ES256 uses. */
static inline EVP_PKEY *hearth_EVP_EC_gen_P256(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}
/* EVP_PKEY_PUBLIC_KEY is a macro expression (a selection mask), which Swift does not import. */
static inline int hearth_EVP_PKEY_PUBLIC_KEY(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
/* OSSL_PARAM_BLD keeps the key name pointer until OSSL_PARAM_BLD_to_param, so the names must be static strings,
   not temporaries bridged from Swift. */
static inline const char *hearth_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *hearth_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
#endif
