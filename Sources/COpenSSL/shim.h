#ifndef TIDINGS_COPENSSL_SHIM_H
#define TIDINGS_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#endif
