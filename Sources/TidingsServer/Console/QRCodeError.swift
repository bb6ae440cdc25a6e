/// Why a text could not be made a QR code.
struct QRCodeError: Error, Sendable, Equatable {
    var message: String
}
