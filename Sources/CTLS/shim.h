/* CTLS: the OpenSSL libssl headers PackHTTP uses for https, plus inline wrappers for the macros Swift cannot call. */
#ifndef CTLS_SHIM_H
#define CTLS_SHIM_H
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* SSL_set_tlsext_host_name (SNI) is a macro over SSL_ctrl. */
static inline int CTLS_set_server_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }

/* SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl. */
static inline int CTLS_require_tls12(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }
#endif
