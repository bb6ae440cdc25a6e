import Foundation

/// The bytes read from one connection and not yet consumed: the socket is read straight into its free
/// space, and the parser consumes from its front without moving what is left.
///
/// Used by one network thread at a time (the connection's), so it has no lock.
final class ReceiveBuffer {
    private var storage: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int) {
        self.capacity = max(1024, capacity)
        storage = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Bytes read and not yet consumed.
    var count: Int { end - start }

    var isEmpty: Bool { start == end }

    /// The unconsumed bytes, valid until the next call that changes the buffer.
    var readable: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + start, count: end - start) }

    /// Drops the first `count` unconsumed bytes.
    func consume(_ count: Int) {
        start += min(count, end - start)
        if start == end { (start, end) = (0, 0) }
    }

    /// Reads from `descriptor` into the free space, first making room for at least `minimum` bytes.
    /// - Returns: what `recv` returned (0 at the end of the stream, -1 with `errno` set), and whether it
    ///   filled the free space (more may be waiting).
    func receive(from descriptor: Int32, minimum: Int) -> (received: Int, filled: Bool) {
        reserve(minimum)
        let space = capacity - end
        let received = recv(descriptor, storage + end, space, 0)
        if received > 0 { end += received }
        return (received, received == space)
    }

    /// Free space at the end after this call: at least `minimum` bytes, by moving the unconsumed bytes to
    /// the front, else by growing.
    private func reserve(_ minimum: Int) {
        guard capacity - end < minimum else { return }
        if start > 0 {
            (storage + 0).copyMemory(from: storage + start, byteCount: end - start)
            (start, end) = (0, end - start)
        }
        guard capacity - end < minimum else { return }
        var grown = capacity
        while grown - end < minimum { grown *= 2 }
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
        larger.copyMemory(from: storage, byteCount: end)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// Gives back memory grown for a large request once the connection has consumed it all.
    func shrink(to size: Int) {
        guard start == end, capacity > size else { return }
        storage.deallocate()
        capacity = max(1024, size)
        storage = .allocate(byteCount: capacity, alignment: 16)
        (start, end) = (0, 0)
    }
}
