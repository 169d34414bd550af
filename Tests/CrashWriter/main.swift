print("crash-writer")
