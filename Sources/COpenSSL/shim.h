/* COpenSSL: the OpenSSL libcrypto headers packtool uses, plus inline wrappers for the macros Swift cannot call. */
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }

/* OPENSSL_free is a macro that adds file and line. */
static inline void COpenSSL_free(void *p) { OPENSSL_free(p); }
#endif
