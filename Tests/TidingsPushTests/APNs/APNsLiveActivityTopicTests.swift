import Foundation
import Testing

@testable import TidingsPush

/// The `apns-topic` the request builder derives from a push's bundle id and push type.
@Suite struct APNsLiveActivityTopicTests {
    func push(_ type: OutgoingPush.PushType, topic: String = "com.example.app") -> OutgoingPush {
        OutgoingPush(
            token: String(repeating: "ab", count: 32), environment: .sandbox, topic: topic, pushType: type, payload: [])
    }

    @Test func liveActivityAndVoIPPushesGetTheirSuffixOnce() throws {
        #expect(APNsRequestBuilder.apnsTopic(for: push(.liveActivity)) == "com.example.app.push-type.liveactivity")
        #expect(
            APNsRequestBuilder.apnsTopic(for: push(.liveActivity, topic: "com.example.app.push-type.liveactivity"))
                == "com.example.app.push-type.liveactivity")
        #expect(APNsRequestBuilder.apnsTopic(for: push(.voip)) == "com.example.app.voip")
        #expect(APNsRequestBuilder.apnsTopic(for: push(.alert)) == "com.example.app")
        let headers = APNsRequestBuilder.headers(for: push(.liveActivity), authorization: nil)
        #expect(headers.first { $0.name == "apns-topic" }?.value == "com.example.app.push-type.liveactivity")
        #expect(headers.first { $0.name == "apns-push-type" }?.value == "liveactivity")
    }
}
