import Foundation
import TidingsServer

FileHandle.standardError.write(Data("tidingsd: not built yet\n".utf8))
exit(2)
