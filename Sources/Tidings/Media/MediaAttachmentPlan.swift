import Foundation
import TidingsModel

/// A media file ready to attach: where it is, what it is, and the type hint to give iOS.
///
/// The file has a fresh unique name with the extension of the sniffed format, because iOS picks the
/// attachment type from the extension. iOS moves the file into its own store once attached; delete
/// it yourself if you do not attach it.
public struct MediaAttachmentPlan: Sendable, Hashable {
    /// The file in the policy's destination directory.
    public var fileURL: URL
    /// The kind attached: the declared one, or the sniffed one when image and GIF were swapped.
    public var kind: PushMedia.Kind
    /// The uniform type identifier for `UNNotificationAttachmentOptionsTypeHintKey` (`public.jpeg`).
    public var typeHint: String
    /// The file's size in bytes.
    public var byteCount: Int64
    /// The MIME type of the sniffed format (`image/png`), which may differ from the server's.
    public var mimeType: String

    public init(fileURL: URL, kind: PushMedia.Kind, typeHint: String, byteCount: Int64, mimeType: String) {
        self.fileURL = fileURL
        self.kind = kind
        self.typeHint = typeHint
        self.byteCount = byteCount
        self.mimeType = mimeType
    }
}
