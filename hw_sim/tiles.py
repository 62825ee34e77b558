# Tiles as individuals: a face string and a back colour.
#
# A Tiles registry numbers every physical tile of the session (an int id);
# face(id) and back(id) (a colour class: 1.. = the profile's colours in order,
# as on the wire) describe it.  Mechanisms move ids around; nothing copies a
# tile.


class Tiles:
    def __init__(self, colours):
        self.colours = list(colours)
        self.faces = []
        self.backs = []

    def add(self, face, back):
        if not isinstance(face, str) or not face:
            raise ValueError("a tile face must be a non-empty string, got %r" % (face,))
        if back < 1 or back > len(self.colours):
            raise ValueError("back colour class %d is not 1..%d" % (back, len(self.colours)))
        self.faces.append(face)
        self.backs.append(back)
        return len(self.faces) - 1

    def add_set(self, faces, back):
        """Add one physical set (a list of face strings) with back colour class
        `back`; returns the new ids in order."""
        ids = []
        for f in faces:
            ids.append(self.add(f, back))
        return ids

    def __len__(self):
        return len(self.faces)

    def face(self, t):
        return self.faces[t]

    def back(self, t):
        return self.backs[t]

    def colour(self, t):
        return self.colours[self.backs[t] - 1]

    def describe(self, ids):
        """[[face, colour], ...] for a list of ids (reports)."""
        out = []
        for t in ids:
            out.append([self.faces[t], self.colours[self.backs[t] - 1]])
        return out


def standard_set():
    """The 136 faces of a standard set (four of each of 34), mpsz notation: for
    tests and demos; real sets come from the rulesets (hostd)."""
    out = []
    for suit in "mps":
        for n in range(1, 10):
            for _ in range(4):
                out.append(str(n) + suit)
    for n in range(1, 8):
        for _ in range(4):
            out.append(str(n) + "z")
    return out
