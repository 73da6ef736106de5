import CNCurses
_ = setlocale(LC_ALL, ""); _ = KEY_RESIZE
print("foodpin: not yet")
