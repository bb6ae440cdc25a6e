import Foundation

if let status = Daemon.main(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
{
    exit(status)
}
dispatchMain()
