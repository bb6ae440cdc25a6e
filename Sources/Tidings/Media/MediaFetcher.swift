import Foundation
import TidingsModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads (or copies from the bundle) a push's media for the Notification Service Extension, within
/// the extension's time and memory budget.
///
/// ```swift
/// let fetcher = MediaFetcher(policy: MediaPolicy(destinationDirectory: FileManager.default.temporaryDirectory))
/// do {
///     let plan = try await fetcher.fetch(media)
///     // UNNotificationAttachment(identifier: "media", url: plan.fileURL,
///     //     options: [UNNotificationAttachmentOptionsTypeHintKey: plan.typeHint])
/// } catch {
///     // record `media_failed` with error.description as the reason; deliver the text-only content
/// }
/// ```
///
/// The body is streamed to a file in the policy's destination directory, never held in memory. A
/// declared `Content-Length` over the kind's cap fails before any body is read; bytes are counted as
/// they arrive, so a missing or lying `Content-Length` still stops at the cap. The type comes from the
/// magic bytes first, then `Content-Type`, then the extensions (see ``MediaFormat/sniff(_:)``). On any
/// failure — including the deadline and task cancellation — the partial file is removed.
///
/// The declared kind against the content: the same kind passes; image and GIF adapt to what arrived
/// (both are pictures to iOS, with the same cap); any other disagreement, such as a video declared and
/// a PNG received, fails with `type_mismatch`. Content no format matches fails with `unknown_type`.
/// Redirects are followed up to ``MediaPolicy/maximumRedirects``, each checked against the HTTPS rule.
///
/// - Important: iOS gives the extension about 30 s in all; the default deadline, 25 s, leaves time
///   to deliver the text-only content when the media fails.
public struct MediaFetcher: Sendable {
    public var policy: MediaPolicy
    private let logger: Logger

    public init(policy: MediaPolicy = MediaPolicy(), logger: Logger = .disabled(label: "tidings.media")) {
        self.policy = policy
        self.logger = logger
    }

    /// Fetches `media` into a fresh file and says how to attach it.
    ///
    /// - Parameters:
    ///   - media: the payload's media; its kind decides the size cap.
    ///   - deadline: when the whole fetch must be over; by default ``MediaPolicy/overallTimeout`` from now.
    /// - Throws: ``MediaFetchError``; its `description` is the `reason` for the `media_failed` event.
    public func fetch(
        _ media: PushMedia, deadline: ContinuousClock.Instant? = nil
    ) async throws(MediaFetchError) -> MediaAttachmentPlan {
        let deadline = deadline ?? .now + policy.overallTimeout
        do {
            let plan: MediaAttachmentPlan
            switch media.source {
            case .remote(let url): plan = try await download(media, from: url, deadline: deadline)
            case .bundled(let name): plan = try copyBundled(media, named: name)
            }
            logger.debug(
                "media ready",
                metadata: ["kind": plan.kind.rawValue, "type": plan.typeHint, "bytes": String(plan.byteCount)])
            return plan
        } catch {
            logger.debug("media failed", metadata: ["reason": error.description])
            throw error
        }
    }

    // MARK: Remote

    private func download(
        _ media: PushMedia, from text: String, deadline: ContinuousClock.Instant
    ) async throws(MediaFetchError) -> MediaAttachmentPlan {
        let url = try policy.requestURL(text)
        if Task.isCancelled { throw MediaFetchError(code: .cancelled, message: "the fetch was cancelled") }
        try prepareDestination()
        let partURL = policy.destinationDirectory.appendingPathComponent("tidings-media-\(UUID().uuidString).part")
        let transfer = MediaDownload(kind: media.kind, policy: policy, partURL: partURL)

        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = policy.requestTimeout.seconds
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        defer { session.invalidateAndCancel() }

        var request = URLRequest(url: url)
        request.timeoutInterval = policy.requestTimeout.seconds
        request.setValue(Self.accept(for: media.kind), forHTTPHeaderField: "Accept")

        let budget = ContinuousClock.now.duration(to: deadline)
        let watchdog = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            transfer.fail(
                MediaFetchError(
                    code: .timeout, message: "the media was not complete within the deadline (\(budget.seconds) s)"))
        }
        defer { watchdog.cancel() }
        let outcome = await withTaskCancellationHandler {
            await transfer.run(request, on: session)
        } onCancel: {
            transfer.fail(MediaFetchError(code: .cancelled, message: "the fetch was cancelled"))
        }
        let finished = try outcome.get()
        do {
            let extensions = [finished.finalURL?.pathExtension, url.pathExtension, media.fileExtension].compactMap {
                $0
            }
            return try place(
                partURL, byteCount: finished.byteCount, head: finished.head, contentType: finished.contentType,
                extensions: extensions, media: media, move: true)
        } catch {
            try? FileManager.default.removeItem(at: partURL)
            throw error
        }
    }

    private static func accept(for kind: PushMedia.Kind) -> String {
        switch kind {
        case .image, .gif: "image/*"
        case .video: "video/*"
        case .audio: "audio/*"
        }
    }

    // MARK: Bundled

    private func copyBundled(_ media: PushMedia, named name: String) throws(MediaFetchError) -> MediaAttachmentPlan {
        try policy.checkBundledName(name)
        guard let directory = policy.bundleDirectory else {
            throw MediaFetchError(code: .bundledMissing, message: "\(name): the policy has no bundle directory")
        }
        let source = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: source.path)
        else {
            throw MediaFetchError(code: .bundledMissing, message: "\(name) is not in \(directory.lastPathComponent)")
        }
        let head = (try? handle.read(upToCount: MediaFormat.sniffLength)) ?? Data()
        let size = (try? handle.seekToEnd()).map(Int64.init) ?? 0
        try? handle.close()
        try prepareDestination()
        return try place(
            source, byteCount: size, head: Array(head), contentType: nil,
            extensions: [source.pathExtension, media.fileExtension].compactMap { $0 }, media: media, move: false)
    }

    // MARK: Shared

    private func prepareDestination() throws(MediaFetchError) {
        do {
            try FileManager.default.createDirectory(at: policy.destinationDirectory, withIntermediateDirectories: true)
        } catch {
            throw MediaFetchError(code: .transport, message: "cannot create the destination directory: \(error)")
        }
    }

    /// Identifies `file`, checks its kind and size, and moves or copies it under a fresh name with the
    /// format's extension.
    private func place(
        _ file: URL, byteCount: Int64, head: [UInt8], contentType: String?, extensions: [String], media: PushMedia,
        move: Bool
    ) throws(MediaFetchError) -> MediaAttachmentPlan {
        let (format, kind) = try policy.admit(
            media, head: head, contentType: contentType, extensions: extensions, byteCount: byteCount)
        let target = policy.destinationDirectory.appendingPathComponent("\(UUID().uuidString).\(format.fileExtension)")
        do {
            if move {
                try FileManager.default.moveItem(at: file, to: target)
            } else {
                try FileManager.default.copyItem(at: file, to: target)
            }
        } catch {
            throw MediaFetchError(code: .transport, message: "cannot write \(target.lastPathComponent): \(error)")
        }
        return MediaAttachmentPlan(
            fileURL: target, kind: kind, typeHint: format.typeIdentifier, byteCount: byteCount,
            mimeType: format.mimeType)
    }
}
