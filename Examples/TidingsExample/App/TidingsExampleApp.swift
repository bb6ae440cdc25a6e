import SwiftUI
import Tidings

/// The whole integration is the adaptor: it sets Tidings up at launch (client, notification-centre proxy,
/// APNs registration) and forwards the device token and background pushes.
@main
struct TidingsExampleApp: App {
    @UIApplicationDelegateAdaptor(TidingsAppDelegate.self) private var tidings

    var body: some Scene {
        WindowGroup {
            ContentView(client: tidings.client)
                .onOpenURL { url in
                    // Deep links the allow-list accepts (tidingsexample://...) are the app's to show.
                    guard let integration = tidings.integration else { return }
                    integration.client.open(url, performer: integration.performer)
                }
        }
    }
}
