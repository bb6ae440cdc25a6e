#ifndef TIDINGS_COPENSSL_SHIM_H
#define TIDINGS_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
// getrandom(2), which Swift's Glibc module leaves out: SecureRandom reads the kernel's generator with it.
#include <sys/random.h>

/// A new P-256 key pair (EVP_EC_gen is a variadic macro Swift cannot call).
static inline EVP_PKEY *tidings_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

/// A new RSA key pair of `bits` bits (EVP_RSA_gen is a variadic macro Swift cannot call).
static inline EVP_PKEY *tidings_generate_rsa_key(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

/// The bytes held by a memory BIO (BIO_get_mem_data is a macro).
static inline long tidings_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// Reads the tag of an AES-GCM encryption just finished (EVP_CTRL_GCM_GET_TAG is a macro).
static inline int tidings_gcm_get_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}

/// Gives an AES-GCM decryption the tag to check at its end (EVP_CTRL_GCM_SET_TAG is a macro).
static inline int tidings_gcm_set_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, tag);
}

#endif
