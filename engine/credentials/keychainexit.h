// How isolation-keychain (app/keychain/main.cpp) ends, read by KeychainHelper: the few outcomes of
// a keychain operation the engine tells apart. Shared by both sides; nothing else in it.
#pragma once

namespace isolation {

enum class KeychainExit : int {
    Ok = 0,
    NotFound = 1, // no such entry (read, delete)
    Denied = 2, // the keychain, or the person it asked, refused access
    CouldNotDelete = 3,
    Unavailable = 4, // no keychain on the bus, no bus, or a backend that failed to answer
    Locked = 5, // read: the entry is there, in a collection that stays locked (no unlock prompt,
                // or the person dismissed it)
    Usage = 64, // the helper was called wrongly
};

} // namespace isolation
