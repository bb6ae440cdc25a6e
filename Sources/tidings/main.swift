import Foundation

let status = await TidingsCommand.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
