import SwiftUI
import Tidings

/// The whole integration is the adaptor: it sets Tidings up at launch (client, notification-centre proxy,
/// APNs registration) and forwards the device token and background pushes.
@main
struct TidingsExampleApp: App {
    @UIApplicationDelegateAdaptor(TidingsAppDelegate.self) private var tidings
    @State private var openedLink: URL?

    var body: some Scene {
        WindowGroup {
            ContentView(client: tidings.client)
                .onAppear {
                    // The app's router: its own scheme (CFBundleURLTypes) always comes here, never to the
                    // system, which would hand it straight back to .onOpenURL.
                    tidings.integration?.performer.openDeepLink = { url in openedLink = url }
                }
                .onOpenURL { url in
                    // Deep links the allow-list accepts (tidingsexample://...) are the app's to show.
                    guard let integration = tidings.integration,
                        integration.client.open(url, performer: integration.performer)
                    else { return openedLink = url }
                }
        }
    }
}
