import Foundation

extension NotificationPreviewer {
    /// Whether the extension would attach `media`, by the policy's own rules, from what is known without
    /// downloading it: the URL, the names' extensions, the payload's MIME type and the hint.
    func image(for media: PushMedia, hint: MediaHint?) -> NotificationPreview.Image {
        let policy = configuration.mediaPolicy
        let location: String
        let extensions: [String]
        let pending: String
        let limit = "\(Self.megabytes(policy.maximumBytes(for: media.kind))) max"
        do {
            switch media.source {
            case .remote(let text):
                location = text
                extensions = [try policy.requestURL(text).pathExtension, media.fileExtension].compactMap { $0 }
                pending = "would be downloaded (\(limit))"
            case .bundled(let name):
                location = name
                try policy.checkBundledName(name)
                extensions = [URL(fileURLWithPath: name).pathExtension, media.fileExtension].compactMap { $0 }
                pending = "copied from the extension's bundle if it holds \(name) (\(limit))"
            }
        } catch {
            let location = if case .bundled(let name) = media.source { name } else { media.url ?? "" }
            return NotificationPreview.Image(isAttached: false, url: location, reason: error.description)
        }
        let named = hint?.contentType != nil || media.mimeType != nil || extensions.contains { !$0.isEmpty }
        do {
            // The download stops at a Content-Length over the declared kind's cap, whatever the format.
            if let byteCount = hint?.byteCount, media.url != nil {
                try policy.checkDeclaredLength(byteCount, of: media.kind)
            }
            _ = try policy.admit(
                media, head: [], contentType: hint?.contentType, extensions: extensions, byteCount: hint?.byteCount)
        } catch  where error.code == .unknownType && !named {
            // Nothing names a format: only the downloaded bytes will.
            return NotificationPreview.Image(
                isAttached: true, url: location, reason: pending + "; its bytes decide the format")
        } catch {
            return NotificationPreview.Image(isAttached: false, url: location, reason: error.description)
        }
        let known = hint?.byteCount != nil && media.url != nil
        return NotificationPreview.Image(isAttached: true, url: location, reason: known ? nil : pending)
    }

    /// `10 MB` for a whole number of mebibytes, bytes otherwise.
    static func megabytes(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? "\(bytes / 1_048_576) MB" : "\(bytes) bytes"
    }
}
