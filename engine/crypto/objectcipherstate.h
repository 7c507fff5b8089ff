// The life of an ObjectEncryptor or ObjectDecryptor.
#pragma once

namespace isolation {

enum class ObjectCipherState {
    Header, // the header has not been written (encryptor) or read (decryptor) yet
    Chunks, // chunks are flowing
    Finished, // finish() succeeded; nothing more is accepted
    Failed, // an error stopped it; every later call returns that error
};

} // namespace isolation
