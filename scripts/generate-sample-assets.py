#!/usr/bin/env python3
"""Draws the sample restaurants' photos and writes their records, for first-run seeding.

    python3 scripts/generate-sample-assets.py [OUTPUT_DIR]    # default: Assets/Restaurants

Every picture is drawn here with ImageMagick's `convert` (gradients, a table, a plate, a
dish made of simple shapes, the restaurant's name): no third-party photos. Output is
deterministic, 640x480 JPEGs at quality 72, about 20-40 KB each, plus restaurants.json:
an array of {name, type, location, phone, description, image}.
"""

import json
import os
import subprocess
import sys
import unicodedata

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
WIDTH, HEIGHT = 640, 480

# name, type, location, phone, description, dish, (top colour, bottom colour), caption
RESTAURANTS = [
    ("Café Déjà Vu", "French Café", "Montréal, Canada", "+1 514-555-0142",
     "Croissants baked twice a day, bowls of café au lait and a zinc bar that has seen "
     "every regular in the Plateau come and go.", "croissant", ("#f6d8ae", "#8a5a3b"), "Café Déjà Vu"),
    ("拉麵 一番", "Ramen", "Tokyo, Japan", "+81 3-5555-0198",
     "Twelve counter seats, a tonkotsu broth simmered for eighteen hours and a ticket "
     "machine by the door. Ask for the ajitama.", "ramen", ("#2b2d42", "#8d0801"), "Ramen Ichiban"),
    ("Trattoria Bella Vista", "Italian", "Florence, Italy", "+39 055 555 0133",
     "Hand-cut pappardelle with wild boar ragù on a terrace that looks over the Arno.",
     "pasta", ("#fefae0", "#bc6c25"), "Bella Vista"),
    ("El Fogón de Marta", "Mexican", "Oaxaca, Mexico", "+52 951 555 0177",
     "Seven moles, tlayudas crisped over charcoal and Marta's own mezcal list.",
     "tacos", ("#ffbe0b", "#d00000"), "El Fogón"),
    ("Bangkok Street Kitchen", "Thai", "Bangkok, Thailand", "+66 2 555 0110",
     "Wok-charred pad kee mao and green curry, as spicy as you dare to order it.",
     "curry", ("#06d6a0", "#073b4c"), "Bangkok Street"),
    ("The Copper Kettle", "British Pub", "York, United Kingdom", "+44 1904 555 012",
     "Real ales, a Sunday roast with proper Yorkshire puddings and a fire in winter.",
     "steak", ("#bb9457", "#432818"), "Copper Kettle"),
    ("Seoul Garden BBQ", "Korean BBQ", "Seoul, South Korea", "+82 2-555-0164",
     "Grill-at-your-table galbi and samgyeopsal with a dozen banchan that keep coming.",
     "bbq", ("#ff595e", "#1d3557"), "Seoul Garden"),
    ("Mumbai Spice House", "Indian", "Mumbai, India", "+91 22 5555 0190",
     "Butter chicken, dal makhani and tandoor breads, with a chaat counter at lunch.",
     "curry", ("#ff9f1c", "#6a040f"), "Mumbai Spice"),
    ("Smokestack Burgers", "Burgers", "Austin, Texas", "+1 512-555-0188",
     "Smash burgers on potato buns, brisket chili and a patio with live music on Fridays.",
     "burger", ("#8ecae6", "#023047"), "Smokestack"),
    ("Athena Taverna", "Greek", "Thessaloniki, Greece", "+30 2310 555 014",
     "Grilled octopus, horiatiki and slow-roasted lamb, with ouzo poured by the owner.",
     "salad", ("#caf0f8", "#0077b6"), "Athena"),
    ("Sushi Kaze", "Sushi", "Osaka, Japan", "+81 6-5555-0121",
     "Omakase at an eight-seat hinoki counter; the fish comes from the morning market.",
     "sushi", ("#e9edc9", "#283618"), "Sushi Kaze"),
    ("Le Petit Bistro", "French Bistro", "Lyon, France", "+33 4 78 55 50 19",
     "Quenelles, salade lyonnaise and a chalkboard of wines from the Beaujolais.",
     "steak", ("#f1faee", "#e63946"), "Le Petit Bistro"),
    ("Phở Sài Gòn", "Vietnamese", "Ho Chi Minh City, Vietnam", "+84 28 5555 0156",
     "Beef phở from 6 a.m., fresh herbs by the handful and strong iced coffee.",
     "ramen", ("#d8f3dc", "#1b4332"), "Pho Sai Gon"),
    ("Bäckerei Müller", "Bakery", "Munich, Germany", "+49 89 5555 0137",
     "Pretzels, rye loaves and Bienenstich since 1952, with weisswurst until noon.",
     "cake", ("#fff1e6", "#99582a"), "Bäckerei Müller"),
    ("La Parrilla Porteña", "Argentine Steakhouse", "Buenos Aires, Argentina", "+54 11 5555-0149",
     "Bife de chorizo over quebracho embers, chimichurri and a long Malbec list.",
     "steak", ("#f4a261", "#264653"), "La Parrilla"),
    ("Green Bowl", "Vegan", "Portland, Oregon", "+1 503-555-0171",
     "Grain bowls, miso-glazed squash and kombucha on tap. Everything is plant-based.",
     "salad", ("#b7e4c7", "#2d6a4f"), "Green Bowl"),
    ("點心 Dim Sum Palace", "Cantonese", "Hong Kong", "+852 5555 0123",
     "Trolleys of har gow, siu mai and char siu bao every morning until two.",
     "dumplings", ("#ffcad4", "#9d0208"), "Dim Sum Palace"),
    ("Casa do Bacalhau", "Portuguese Seafood", "Lisbon, Portugal", "+351 21 555 0165",
     "Salt cod a dozen ways, grilled sardines and pastéis de nata for dessert.",
     "fish", ("#a8dadc", "#1d3557"), "Casa do Bacalhau"),
    ("İstanbul Kebap Evi", "Turkish", "Istanbul, Türkiye", "+90 212 555 0118",
     "Adana kebap off the ocakbaşı grill, lahmacun and pide from a wood oven.",
     "kebab", ("#ffd6a5", "#9c2c00"), "Kebap Evi"),
    ("Nordic Table", "Scandinavian", "Copenhagen, Denmark", "+45 55 55 01 27",
     "Smørrebrød at lunch, a seasonal tasting menu at night, and sourdough from our own starter.",
     "fish", ("#edf2f4", "#5c677d"), "Nordic Table"),
    ("Marrakech Nights", "Moroccan", "Marrakech, Morocco", "+212 524 555 013",
     "Lamb tagine with prunes, couscous on Fridays and mint tea poured from a height.",
     "tagine", ("#f9c74f", "#90323d"), "Marrakech Nights"),
    ("Pizzeria Napoli", "Pizza", "Naples, Italy", "+39 081 555 0144",
     "Margherita and marinara from a 485 °C wood oven, dough rested for 48 hours.",
     "pizza", ("#ffe8d6", "#6b705c"), "Pizzeria Napoli"),
    ("Addis Injera", "Ethiopian", "Addis Ababa, Ethiopia", "+251 11 555 0152",
     "Shared platters of doro wat and shiro on injera, with a coffee ceremony after.",
     "curry", ("#e9c46a", "#3d405b"), "Addis Injera"),
    ("Gelateria Dolce Vita", "Ice Cream", "Rome, Italy", "+39 06 555 0109",
     "Pistachio from Bronte, stracciatella and a new sorbet every morning.",
     "icecream", ("#ffc8dd", "#a2d2ff"), "Dolce Vita"),
]


def slug(text):
    """ASCII file name from a restaurant's caption: "Café Déjà Vu" -> "cafe-deja-vu"."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "-".join("".join(c if c.isalnum() else " " for c in plain).split())


def plate(cx=320, cy=315, rx=190, ry=112):
    return [
        "fill #00000055", f"ellipse {cx + 6},{cy + 12} {rx},{ry} 0,360",
        "fill #fbfbf8", f"ellipse {cx},{cy} {rx},{ry} 0,360",
        "fill #ecebe6", f"ellipse {cx},{cy} {rx - 42},{ry - 26} 0,360",
    ]


def bowl(colour, broth, cx=320, cy=300):
    return [
        "fill #00000055", f"ellipse {cx + 6},{cy + 70} 170,60 0,360",
        f"fill {colour}", f"ellipse {cx},{cy + 20} 170,110 0,180",
        f"fill {colour}", f"ellipse {cx},{cy} 170,58 0,360",
        f"fill {broth}", f"ellipse {cx},{cy} 150,46 0,360",
    ]


def dish(kind):
    """ImageMagick -draw primitives for one dish, centred on the plate."""
    if kind == "pizza":
        return plate() + [
            "fill #d9a441", "ellipse 320,312 150,88 0,360",
            "fill #c0392b", "ellipse 320,312 132,76 0,360",
            "fill #f7e7b4", "ellipse 280,300 26,14 0,360", "ellipse 360,330 28,15 0,360",
            "ellipse 330,280 24,13 0,360", "ellipse 270,340 22,12 0,360",
            "fill #2e7d32", "ellipse 300,320 12,6 0,360", "ellipse 370,300 12,6 0,360",
        ]
    if kind == "ramen" or kind == "pho":
        return bowl("#b23a48", "#e9c46a") + [
            "fill #f4f1de", "ellipse 300,300 70,14 0,360",
            "fill #fff3b0", "ellipse 380,292 24,16 0,360", "fill #f4a259", "ellipse 380,292 11,8 0,360",
            "fill #2a9d8f", "ellipse 255,290 18,8 0,360", "ellipse 350,315 16,7 0,360",
            "fill #6d4c41", "ellipse 240,312 34,12 0,360",
        ]
    if kind == "sushi":
        prims = ["fill #3a2e1f", "rectangle 150,250 490,372", "fill #00000044", "rectangle 156,372 496,380"]
        for i, colour in enumerate(["#f28482", "#f6bd60", "#f28482", "#ffffff", "#f6bd60"]):
            x = 175 + i * 62
            prims += ["fill #fbfbf8", f"roundrectangle {x},280 {x + 50},340 10,10",
                      f"fill {colour}", f"roundrectangle {x - 4},268 {x + 54},300 12,12"]
        return prims
    if kind == "burger":
        return plate() + [
            "fill #e09f3e", "ellipse 320,330 120,40 0,360",
            "fill #5c3d2e", "ellipse 320,305 128,34 0,360",
            "fill #ffd166", "polygon 200,295 440,295 420,318 220,318",
            "fill #06d6a0", "ellipse 320,285 132,18 0,360",
            "fill #e09f3e", "ellipse 320,262 118,58 180,360",
            "fill #fff3b0", "ellipse 290,240 6,3 0,360", "ellipse 340,232 6,3 0,360", "ellipse 370,248 6,3 0,360",
        ]
    if kind == "tacos":
        prims = plate()
        for x in (230, 320, 410):
            prims += ["fill #f2cc8f", f"ellipse {x},320 60,70 180,360",
                      "fill #81b29a", f"ellipse {x},300 44,12 0,360",
                      "fill #e07a5f", f"ellipse {x - 10},296 12,6 0,360"]
        return prims
    if kind == "curry":
        return bowl("#f1faee", "#e76f51") + [
            "fill #f4a261", "ellipse 280,300 24,12 0,360", "ellipse 350,305 26,12 0,360",
            "ellipse 320,288 22,10 0,360",
            "fill #2a9d8f", "ellipse 300,306 10,5 0,360", "ellipse 370,292 10,5 0,360",
            "fill #f1e3c8", "ellipse 460,390 90,36 0,360",
        ]
    if kind == "steak":
        return plate() + [
            "fill #6f1d1b", "ellipse 300,310 95,52 0,360",
            "fill #99582a", "ellipse 300,306 85,44 0,360",
            "stroke #432818", "stroke-width 5", "line 240,290 350,330", "line 260,280 370,320",
            "stroke none",
            "fill #ffe066", "rectangle 395,280 460,292", "rectangle 400,300 470,312", "rectangle 392,320 455,332",
            "fill #52b788", "ellipse 420,350 26,12 0,360",
        ]
    if kind == "bbq":
        prims = ["fill #222222", "ellipse 320,320 200,110 0,360", "fill #555555", "ellipse 320,315 180,98 0,360",
                 "stroke #888888", "stroke-width 4"]
        prims += [f"line {x},230 {x},400" for x in range(180, 470, 30)]
        prims += ["stroke none", "fill #bc4749", "roundrectangle 220,280 320,310 8,8", "roundrectangle 330,300 430,330 8,8",
                  "fill #f2e8cf", "roundrectangle 240,330 320,352 8,8"]
        return prims
    if kind == "salad":
        prims = bowl("#ffffff", "#95d5b2")
        for x, y, c in [(260, 292, "#2d6a4f"), (330, 285, "#40916c"), (390, 300, "#52b788"),
                        (300, 310, "#d62828"), (360, 312, "#f6f6f6"), (250, 310, "#d62828"), (400, 285, "#212529")]:
            prims += [f"fill {c}", f"ellipse {x},{y} 22,11 0,360"]
        return prims
    if kind == "cake":
        return plate() + [
            "fill #fcd5ce", "polygon 220,260 420,260 420,340 220,340",
            "fill #f8edeb", "ellipse 320,340 100,26 0,180",
            "fill #ffffff", "ellipse 320,260 100,26 0,360",
            "fill #d00000", "ellipse 320,250 14,12 0,360",
            "fill #9d6b53", "rectangle 220,296 420,306",
        ]
    if kind == "croissant":
        return plate() + [
            "fill #c97c3a", "ellipse 320,305 120,48 200,340",
            "fill #e09f3e", "ellipse 320,310 100,44 190,350",
            "fill #f2c078", "ellipse 270,300 30,26 0,360", "ellipse 320,292 34,30 0,360", "ellipse 370,300 30,26 0,360",
            "fill #6f4518", "ellipse 470,270 40,40 0,360", "fill #c89f7a", "ellipse 470,270 32,32 0,360",
        ]
    if kind == "dumplings":
        prims = ["fill #00000055", "ellipse 326,332 180,100 0,360", "fill #d4a373", "ellipse 320,320 180,100 0,360",
                 "fill #faedcd", "ellipse 320,315 160,86 0,360"]
        for x, y in [(260, 300), (330, 290), (390, 315), (290, 340), (360, 345)]:
            prims += ["fill #fefae0", f"ellipse {x},{y} 38,26 0,360", "fill #e9edc9", f"ellipse {x},{y - 14} 14,8 0,360"]
        return prims
    if kind == "fish":
        return plate() + [
            "fill #8d99ae", "ellipse 310,310 110,40 0,360",
            "fill #8d99ae", "polygon 410,310 470,270 470,350",
            "fill #edf2f4", "ellipse 245,300 10,10 0,360", "fill #2b2d42", "ellipse 245,300 5,5 0,360",
            "fill #ffd60a", "ellipse 220,360 30,12 0,360",
        ]
    if kind == "kebab":
        prims = plate()
        for i, y in enumerate((285, 325)):
            prims += ["stroke #6c584c", "stroke-width 4", f"line 160,{y} 480,{y}", "stroke none"]
            for j in range(5):
                colour = ["#9c2c00", "#2a9d8f", "#9c2c00", "#f4a261", "#9c2c00"][(j + i) % 5]
                prims += [f"fill {colour}", f"roundrectangle {190 + j * 56},{y - 18} {232 + j * 56},{y + 18} 8,8"]
        return prims
    if kind == "tagine":
        return plate() + [
            "fill #b5651d", "ellipse 320,320 150,60 0,360",
            "fill #c1440e", "polygon 200,315 440,315 340,170 300,170",
            "fill #e9c46a", "ellipse 320,170 22,12 0,360",
            "fill #f4a261", "ellipse 320,318 150,14 0,180",
        ]
    if kind == "pasta":
        prims = plate() + ["fill #f6d186", "ellipse 320,305 120,60 0,360"]
        for r in (100, 80, 60, 40):
            prims += ["stroke #e9b44c", "stroke-width 6", "fill none", f"ellipse 320,305 {r},{r // 2} 0,360"]
        return prims + ["stroke none", "fill #8d0801", "ellipse 320,300 46,20 0,360",
                        "fill #52b788", "ellipse 330,290 12,6 0,360"]
    if kind == "icecream":
        return [
            "fill #00000044", "ellipse 326,420 70,14 0,360",
            "fill #d4a373", "polygon 270,250 370,250 320,420",
            "fill #bc8a5f", "line 280,270 350,330", "line 300,250 360,300",
            "fill #95d5b2", "ellipse 320,220 62,48 0,360",
            "fill #fff0f3", "ellipse 290,170 50,40 0,360",
            "fill #ff8fab", "ellipse 350,168 50,40 0,360",
            "fill #ffffff", "ellipse 310,150 14,8 0,360",
        ]
    raise ValueError(kind)


def render(path, dish_kind, colours, caption):
    top, bottom = colours
    # Each primitive is its own -draw, so fill/stroke settings carry over in order.
    args = ["convert", "-size", f"{WIDTH}x{HEIGHT}", f"gradient:{top}-{bottom}",
            "-fill", "#5b3a29", "-draw", "rectangle 0,360 640,480",
            "-fill", "#7a5238", "-draw", "rectangle 0,356 640,364"]
    fill, stroke, stroke_width = "#000000", "none", "1"
    for primitive in dish(dish_kind):
        if primitive.startswith("fill "):
            fill = primitive[5:]
        elif primitive.startswith("stroke-width "):
            stroke_width = primitive[13:]
        elif primitive.startswith("stroke "):
            stroke = primitive[7:]
        else:
            args += ["-fill", fill, "-stroke", stroke, "-strokewidth", stroke_width, "-draw", primitive]
    args += ["-stroke", "none", "-font", FONT, "-pointsize", "38",
             "-fill", "#00000088", "-annotate", "+32+64", caption,
             "-fill", "#ffffff", "-annotate", "+30+62", caption,
             "-strip", "-sampling-factor", "4:2:0", "-interlace", "none", "-quality", "72", path]
    subprocess.run(args, check=True)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "Assets", "Restaurants")
    os.makedirs(out, exist_ok=True)
    records = []
    for name, kind, location, phone, description, dish_kind, colours, caption in RESTAURANTS:
        image = slug(caption) + ".jpg"
        render(os.path.join(out, image), dish_kind, colours, caption)
        records.append({"name": name, "type": kind, "location": location, "phone": phone,
                        "description": description, "image": image})
    with open(os.path.join(out, "restaurants.json"), "w", encoding="utf-8") as f:
        json.dump(records, f, ensure_ascii=False, indent=2)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(out, r["image"])) for r in records)
    print(f"wrote {len(records)} restaurants, {total // 1024} KB of images, to {out}")


if __name__ == "__main__":
    main()
