# Hostile (count_boxes): searches forever; with count_boxes' longer time per call the check must still end well within 30 s.
def count_boxes(mark):
    boards = [[' '] * 9]
    while True:
        boards.append(list(boards[-1]))
        boards.pop(0)
