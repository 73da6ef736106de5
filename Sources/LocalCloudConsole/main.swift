print("localcloud: not yet")
