import SwiftUI
import Tidings

/// Asks for permission after explaining why, and shows what Tidings knows about this installation.
struct ContentView: View {
    let client: TidingsClient?
    @State private var permission: NotificationPermission?

    var body: some View {
        NavigationView {
            List {
                Section("Installation") {
                    Text(client?.installationID ?? "Tidings is not configured")
                        .font(.footnote.monospaced())
                        .textSelection(.enabled)
                }
                Section("Notifications") {
                    Text("Sales and order updates, at most one a day.")
                    Button("Allow notifications") {
                        Task { permission = await client?.requestAuthorization() }
                    }
                    .disabled(client == nil)
                    if let permission {
                        Text("Permission: \(permission.rawValue)")
                    }
                }
            }
            .navigationTitle("Tidings Example")
        }
    }
}
