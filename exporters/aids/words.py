"""Words for player aids: the aid's own captions in four languages, declared labels in the chosen
language (with a record of which fell back to English), and rule expressions read out in words.

The rules language carries translations only on declaration headers (`"Forest" [ru: "Лес"]`), so
those are used where given. The aid's fixed captions ("Die roll", "Result codes"...) are
translated here. Conditions (`when weather == mud`) are read out with English connectives and
translated names: the language has no translations for a rule's condition.
"""

from __future__ import annotations

from fractions import Fraction

from warcodex.dsl import ast
from warcodex.dsl.model import GameDef

LANGS = ("en", "ru", "pl", "uk")
LANG_NAMES = {"en": "English", "ru": "русский", "pl": "polski", "uk": "українська"}

# The aid's own captions. A key missing in a language falls back to English.
STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "pile_named": "in “{pile}”",
        "every_side": "every side",
        "cards_count_one": "{n} card",
        "option_used": "the optional rule “{option}” is used",
        "drawn_by": "drawn by {sides}",
        "pile_face_down": "{pile}: face down (nobody sees its cards)",
        "pile_owner_only": "{pile}: each card seen by its owner only",
        "either_side": "either side",
        "cards_in": "{n} {where}",
        "pile_draw": "in the draw pile",
        "pile_discard": "on the discard pile",
        "pile_removed": "removed",
        "pile_set_aside": "set aside",
        "pile_play": "in play",
        "pile_hand": "in {side}'s hand",
        "owners": "Owner",
        "events": "Events",
        "depends": "depends",
        "provisional_setup": "rows marked † come from set-up cards the rulebook does not print",
        "provisional_schedule": "rows marked † come from data the rulebook does not print",
        "box_named": "the {box} box",
        "steps_of": "{n} of {m} steps",
        "turn_or_later": "turn {t} or later",
        "a_unit_from": "a unit from {box}",
        "to_box": "to {box}",
        "for_each_of": "one for each of {what}",
        "chosen_among": "chosen among {what}",
        "if_else_later": "if {cond}; otherwise on a later turn ({turns})",
        "track_arrivals": "{side} +{n}",
        "track_withdrawals": "{side} withdrawals",
        "not_in_scenario": "not in this scenario",
        "withdrawals": "withdrawals",
        "units_at_start": "Units",
        "player_aids": "Player aids",
        "scenario": "Scenario",
        "edition": "Rulebook edition",
        "no_edition": "the rules do not name their rulebook edition",
        "sheet_tables": "Tables",
        "sheet_terrain": "Terrain effects",
        "sheet_charts": "Odds charts",
        "sheet_units": "Units",
        "sheet_cards": "Cards",
        "cards_count": "{n} cards",
        "sheet_sequence": "Sequence of play",
        "sheet_sources": "Sources and sections",
        "die_roll": "Die roll",
        "roll": "Roll",
        "row": "Row",
        "odds": "Odds",
        "difference": "Difference",
        "or_less": "{0} or less", "or_more": "{0} or more", "to_range": "{0} to {1}",
        "result": "Result",
        "chance": "Chance",
        "beyond": "Beyond the table",
        "not_allowed": "not allowed",
        "use_column": "use {column}",
        "automatic": "{cell}, no die roll",
        "below": "below {k}",
        "or_more": "{k} or more",
        "above": "above {k}",
        "or_less": "{k} or less",
        "never": "never reached",
        "legend": "Result codes",
        "rules_apply": "Rules that apply",
        "base": "base",
        "stage_order": "stages in the order: {order}",
        "group": "only one of “{group}” counts",
        "round_up": "round up",
        "round_down": "round down",
        "round_nearest": "round to nearest",
        "when": "when",
        "clamp": "modified rolls beyond the table use the end rows",
        "no_clamp": "a modified roll off the table is not allowed",
        "source": "Source",
        "src_rulebook": "rulebook",
        "src_player_aid": "player aid",
        "src_provisional": "provisional",
        "src_derived": "derived",
        "badge_provisional": "PROVISIONAL",
        "provisional_warning": "stand-in values, not the published table",
        "tec": "Terrain Effects Chart",
        "terrain": "Terrain",
        "edges": "Hexside and connection features",
        "edge": "Feature",
        "features": "Map features",
        "feature": "Feature",
        "markers": "Markers",
        "marker": "Marker",
        "properties": "Properties",
        "no": "no",
        "prohibited": "prohibited",
        "must_stop": "must stop",
        "notes": "Notes",
        "units": "Unit chart",
        "unit": "Unit",
        "classes": "Classes",
        "used_by": "Used by",
        "steps_note": "Values that change with losses are shown full strength / then each step lost ({steps}).",
        "production": "National production chart",
        "side": "Side",
        "at_start": "at start",
        "income": "income per turn at start",
        "hits": "Hit chart",
        "hit_note": "Each unit rolls {dice} and hits on a roll {op} its value. Expected hits per round = chance to hit.",
        "attack_hit": "hit chance",
        "per_cost": "hits per 10 cost",
        "sequence": "Sequence of play",
        "for_each_side": "for each side in turn order: {sides}",
        "played_by": "played by {side}",
        "off_map_box": "off the map: {box}",
        "repeat": "Repeat",
        "repeat_while": "again and again while {cond}",
        "only_when": "only when {cond}",
        "allowed_actions": "actions",
        "automatic_steps": "automatic",
        "at_phase_start": "at the start",
        "at_phase_end": "at the end",
        "at_most": "at most {n}",
        "standing_rules": "At any time",
        "on_event": "{event}",
        "turn_track": "Turn record track",
        "turn": "Turn",
        "from_turn": "from turn {t}",
        "turns_range": "turns {a}–{b}",
        "turn_n": "turn {t}",
        "reinforcements": "Reinforcement schedule",
        "arrives": "Arrives",
        "where": "Where",
        "name": "Name",
        "setup": "Set-up",
        "sheet_battles": "Typical battles",
        "battles_intro": "The odds of the battles the game declares (its scenes/ folder), computed by the engine from the rules: casualties cheapest first and decisions as each battle's standing orders say.",
        "battle_exact": "exact, from the rules",
        "battle_mc": "Monte Carlo estimate: {n} battles played by the rules, the outcome chances within ±{hw} (95% confidence); not exact: {why}",
        "battle_column": "result read on the {table}, column {columns}",
        "battle_results": "What the combat does to the units",
        "battle_other_results": "{n} other results",
        "battle_losses": "Expected losses",
        "battle_provisional": "These odds depend on provisional data",
        "attacker_wins": "attacker wins",
        "defender_wins": "defender wins",
        "mutual_destruction": "mutual destruction",
        "both_remain": "both remain",
        "role_attacker": "attacker",
        "role_defender": "defender",
        "charts_intro": "Chance of each result for each column, with die-roll modifiers {drms} ({why}). Each bar adds up to 100%.",
        "drm_default": "the rules name none; −2 to +2 shown",
        "drm_rules": "the modifiers the rules give",
        "drm_none": "unmodified roll only: the table does not clamp",
        "drm_unmodified": "the rules add no modifier to this roll",
        "drm": "DRM",
        "sources": "Sources of the tables",
        "sections": "Sections cited",
        "language_note": "Labels are in {lang} where the rules give a translation ({n} of {total}); the others are in English.",
        "language_note_all": "All labels are in {lang}.",
        "conditions_english": "Rule conditions are shown in the rules’ own terms.",
        "generated": "Generated by Warcodex from the rules files (fingerprint {fp}). Paper: {paper}.",
        "provisional_items": "Provisional values (stand-ins for numbers the rulebook does not print)",
        "event_game_start": "at the start of the game",
        "event_turn_start": "at the start of each game turn",
        "event_turn_end": "at the end of each game turn",
        "event_enter": "when a unit enters a location",
        "event_eliminated": "when a unit is eliminated",
        "event_game_end": "at the end of the game",
        "game_end": "end of game",
        "table_index": "Tables",
        "off_table": "off the table",
        "family_other": "Other results",
        "no_effect": "no effect",
        "no_roll": "no roll",
        "column": "column",
        "columns": "columns",
    },
    "ru": {
        "pile_named": "в «{pile}»",
        "every_side": "все стороны",
        "cards_count_one": "карт: {n}",
        "option_used": "применяется дополнительное правило «{option}»",
        "drawn_by": "берут: {sides}",
        "pile_face_down": "{pile}: рубашкой вверх (карты не видит никто)",
        "pile_owner_only": "{pile}: карту видит только её владелец",
        "either_side": "любая сторона",
        "cards_in": "{n} {where}",
        "pile_draw": "в колоде",
        "pile_discard": "в сбросе",
        "pile_removed": "удалены",
        "pile_set_aside": "отложены",
        "pile_play": "в игре",
        "pile_hand": "на руке у стороны {side}",
        "owners": "Владелец",
        "events": "События",
        "depends": "зависит",
        "provisional_setup": "строки с † взяты из карточек расстановки, которых нет в правилах",
        "provisional_schedule": "строки с † взяты из данных, которых нет в правилах",
        "box_named": "ячейка «{box}»",
        "steps_of": "{n} из {m} шагов",
        "turn_or_later": "ход {t} или позже",
        "a_unit_from": "подразделение из {box}",
        "to_box": "в {box}",
        "for_each_of": "по одному на каждое из: {what}",
        "chosen_among": "по выбору среди: {what}",
        "if_else_later": "если {cond}; иначе в более поздний ход ({turns})",
        "track_arrivals": "{side} +{n}",
        "track_withdrawals": "{side}: выводы",
        "not_in_scenario": "не в этом сценарии",
        "withdrawals": "выводы",
        "units_at_start": "Подразделения",
        "group": "учитывается только одно из «{group}»",
        "round_up": "с округлением вверх",
        "round_down": "с округлением вниз",
        "round_nearest": "с округлением",
        "player_aids": "Памятка игрока",
        "scenario": "Сценарий",
        "edition": "Издание правил",
        "no_edition": "издание правил не указано",
        "sheet_tables": "Таблицы",
        "sheet_terrain": "Влияние местности",
        "sheet_charts": "Диаграммы вероятностей",
        "sheet_units": "Подразделения",
        "sheet_cards": "Карты",
        "cards_count": "карт: {n}",
        "sheet_sequence": "Последовательность хода",
        "sheet_sources": "Источники и разделы",
        "die_roll": "Бросок",
        "roll": "Бросок",
        "row": "Строка",
        "odds": "Соотношение",
        "difference": "Разница",
        "or_less": "{0} и меньше", "or_more": "{0} и больше", "to_range": "от {0} до {1}",
        "result": "Результат",
        "chance": "Вероятность",
        "beyond": "За пределами таблицы",
        "not_allowed": "запрещено",
        "use_column": "по столбцу {column}",
        "automatic": "{cell}, без броска",
        "below": "ниже {k}",
        "or_more": "{k} и выше",
        "above": "выше {k}",
        "or_less": "{k} и ниже",
        "never": "не встречается",
        "legend": "Коды результатов",
        "rules_apply": "Применимые правила",
        "base": "основа",
        "when": "когда",
        "clamp": "модифицированный бросок за пределами таблицы берётся по крайней строке",
        "no_clamp": "модифицированный бросок за пределами таблицы недопустим",
        "source": "Источник",
        "src_rulebook": "правила",
        "src_player_aid": "памятка",
        "src_provisional": "временно",
        "src_derived": "выведено",
        "badge_provisional": "ВРЕМЕННО",
        "provisional_warning": "замещающие значения, не опубликованная таблица",
        "tec": "Таблица влияния местности",
        "terrain": "Местность",
        "edges": "Стороны гексов и связи",
        "edge": "Элемент",
        "features": "Объекты карты",
        "feature": "Объект",
        "markers": "Маркеры",
        "marker": "Маркер",
        "properties": "Свойства",
        "no": "нет",
        "prohibited": "запрещено",
        "must_stop": "остановка",
        "notes": "Примечания",
        "units": "Таблица подразделений",
        "unit": "Подразделение",
        "classes": "Классы",
        "used_by": "Сторона",
        "production": "Таблица производства",
        "side": "Сторона",
        "at_start": "в начале",
        "income": "доход за ход в начале",
        "hits": "Таблица попаданий",
        "attack_hit": "шанс попадания",
        "sequence": "Последовательность хода",
        "for_each_side": "для каждой стороны по очереди: {sides}",
        "played_by": "играет {side}",
        "off_map_box": "вне карты: {box}",
        "repeat": "Повторять",
        "repeat_while": "снова и снова, пока {cond}",
        "only_when": "только когда {cond}",
        "allowed_actions": "действия",
        "automatic_steps": "автоматически",
        "at_phase_start": "в начале",
        "at_phase_end": "в конце",
        "at_most": "не более {n}",
        "standing_rules": "В любой момент",
        "turn_track": "Шкала ходов",
        "turn": "Ход",
        "from_turn": "с хода {t}",
        "turns_range": "ходы {a}–{b}",
        "turn_n": "ход {t}",
        "reinforcements": "График подкреплений",
        "arrives": "Прибытие",
        "where": "Где",
        "name": "Название",
        "setup": "Расстановка",
        "drm": "МБК",
        "sources": "Источники таблиц",
        "sections": "Упомянутые разделы",
        "language_note": "Названия даны на языке «{lang}», где в правилах есть перевод ({n} из {total}); остальные по-английски.",
        "language_note_all": "Все названия даны на языке «{lang}».",
        "conditions_english": "Условия правил показаны в терминах самих правил.",
        "game_end": "конец игры",
        "no_effect": "без эффекта",
        "no_roll": "без броска",
        "column": "столбец",
        "columns": "столбца",
        "off_table": "вне таблицы",
        "family_other": "Прочие результаты",
    },
    "pl": {
        "pile_named": "w „{pile}”",
        "every_side": "każda strona",
        "option_used": "stosowana jest zasada opcjonalna „{option}”",
        "drawn_by": "dobierają: {sides}",
        "pile_face_down": "{pile}: rewersem do góry (nikt nie widzi kart)",
        "pile_owner_only": "{pile}: kartę widzi tylko jej właściciel",
        "either_side": "każda strona",
        "cards_in": "{n} {where}",
        "pile_draw": "w talii",
        "pile_discard": "na stosie odrzuconych",
        "pile_removed": "usunięte",
        "pile_set_aside": "odłożone",
        "pile_play": "w grze",
        "pile_hand": "w ręce: {side}",
        "owners": "Właściciel",
        "events": "Wydarzenia",
        "depends": "zależnie",
        "provisional_setup": "wiersze oznaczone † pochodzą z kart rozstawienia, których nie ma w zasadach",
        "provisional_schedule": "wiersze oznaczone † pochodzą z danych, których nie ma w zasadach",
        "box_named": "pole „{box}”",
        "steps_of": "{n} z {m} kroków",
        "turn_or_later": "tura {t} lub później",
        "a_unit_from": "jednostka z {box}",
        "to_box": "do {box}",
        "for_each_of": "po jednej na każdą z: {what}",
        "chosen_among": "do wyboru spośród: {what}",
        "if_else_later": "jeśli {cond}; w przeciwnym razie w późniejszej turze ({turns})",
        "track_arrivals": "{side} +{n}",
        "track_withdrawals": "{side}: wycofania",
        "not_in_scenario": "nie w tym scenariuszu",
        "withdrawals": "wycofania",
        "units_at_start": "Jednostki",
        "group": "liczy się tylko jedno z „{group}”",
        "round_up": "zaokrąglając w górę",
        "round_down": "zaokrąglając w dół",
        "round_nearest": "zaokrąglając",
        "player_aids": "Pomoce gracza",
        "scenario": "Scenariusz",
        "edition": "Wydanie zasad",
        "sheet_tables": "Tabele",
        "sheet_terrain": "Wpływ terenu",
        "sheet_charts": "Wykresy szans",
        "sheet_units": "Jednostki",
        "sheet_sequence": "Sekwencja tury",
        "sheet_sources": "Źródła i rozdziały",
        "die_roll": "Rzut",
        "roll": "Rzut",
        "odds": "Stosunek sił",
        "result": "Wynik",
        "chance": "Szansa",
        "beyond": "Poza tabelą",
        "not_allowed": "niedozwolone",
        "use_column": "użyj {column}",
        "automatic": "{cell}, bez rzutu",
        "below": "poniżej {k}",
        "or_more": "{k} lub więcej",
        "above": "powyżej {k}",
        "or_less": "{k} lub mniej",
        "legend": "Kody wyników",
        "rules_apply": "Zasady",
        "when": "gdy",
        "source": "Źródło",
        "src_rulebook": "zasady",
        "src_player_aid": "pomoc gracza",
        "src_provisional": "tymczasowe",
        "src_derived": "wyprowadzone",
        "badge_provisional": "TYMCZASOWE",
        "provisional_warning": "wartości zastępcze, nie opublikowana tabela",
        "tec": "Tabela efektów terenu",
        "terrain": "Teren",
        "markers": "Znaczniki",
        "properties": "Właściwości",
        "no": "nie",
        "units": "Tabela jednostek",
        "unit": "Jednostka",
        "side": "Strona",
        "sequence": "Sekwencja tury",
        "turn_track": "Tor tur",
        "turn": "Tura",
        "from_turn": "od tury {t}",
        "turn_n": "tura {t}",
        "reinforcements": "Harmonogram posiłków",
        "setup": "Rozstawienie",
        "sources": "Źródła tabel",
        "sections": "Cytowane rozdziały",
        "language_note": "Nazwy są w języku: {lang}, gdzie zasady podają tłumaczenie ({n} z {total}); pozostałe po angielsku.",
        "language_note_all": "Wszystkie nazwy są w języku: {lang}.",
        "no_effect": "brak efektu",
        "no_roll": "bez rzutu",
        "column": "kolumna",
        "columns": "kolumny",
    },
    "uk": {
        "pile_named": "у «{pile}»",
        "every_side": "усі сторони",
        "option_used": "застосовується додаткове правило «{option}»",
        "drawn_by": "беруть: {sides}",
        "pile_face_down": "{pile}: сорочкою догори (фішок не бачить ніхто)",
        "pile_owner_only": "{pile}: фішку бачить лише її власник",
        "either_side": "будь-яка сторона",
        "cards_in": "{n} {where}",
        "pile_draw": "у колоді",
        "pile_discard": "у скиді",
        "pile_removed": "вилучені",
        "pile_set_aside": "відкладені",
        "pile_play": "у грі",
        "pile_hand": "на руці у сторони {side}",
        "owners": "Власник",
        "events": "Події",
        "depends": "залежно",
        "provisional_setup": "рядки з † узято з карток розстановки, яких немає в правилах",
        "provisional_schedule": "рядки з † узято з даних, яких немає в правилах",
        "box_named": "комірка «{box}»",
        "steps_of": "{n} з {m} кроків",
        "turn_or_later": "хід {t} або пізніше",
        "a_unit_from": "підрозділ з {box}",
        "to_box": "до {box}",
        "for_each_of": "по одному на кожне з: {what}",
        "chosen_among": "на вибір серед: {what}",
        "if_else_later": "якщо {cond}; інакше в пізніший хід ({turns})",
        "track_arrivals": "{side} +{n}",
        "track_withdrawals": "{side}: виведення",
        "not_in_scenario": "не в цьому сценарії",
        "withdrawals": "виведення",
        "units_at_start": "Підрозділи",
        "played_by": "грає {side}",
        "off_map_box": "поза мапою: {box}",
        "repeat": "Повторювати",
        "repeat_while": "знову і знову, доки {cond}",
        "group": "враховується лише одне з «{group}»",
        "round_up": "з округленням угору",
        "round_down": "з округленням униз",
        "round_nearest": "з округленням",
        "player_aids": "Пам'ятка гравця",
        "scenario": "Сценарій",
        "edition": "Видання правил",
        "sheet_tables": "Таблиці",
        "sheet_terrain": "Вплив місцевості",
        "sheet_charts": "Діаграми ймовірностей",
        "sheet_units": "Підрозділи",
        "sheet_sequence": "Послідовність ходу",
        "sheet_sources": "Джерела й розділи",
        "die_roll": "Кидок",
        "roll": "Кидок",
        "odds": "Співвідношення",
        "result": "Результат",
        "chance": "Ймовірність",
        "beyond": "Поза таблицею",
        "not_allowed": "заборонено",
        "use_column": "за стовпцем {column}",
        "automatic": "{cell}, без кидка",
        "below": "нижче {k}",
        "or_more": "{k} і вище",
        "above": "вище {k}",
        "or_less": "{k} і нижче",
        "legend": "Коди результатів",
        "rules_apply": "Застосовні правила",
        "when": "коли",
        "source": "Джерело",
        "src_rulebook": "правила",
        "src_provisional": "тимчасово",
        "badge_provisional": "ТИМЧАСОВО",
        "provisional_warning": "замісні значення, не опублікована таблиця",
        "tec": "Таблиця впливу місцевості",
        "terrain": "Місцевість",
        "markers": "Маркери",
        "properties": "Властивості",
        "no": "ні",
        "units": "Таблиця підрозділів",
        "unit": "Підрозділ",
        "side": "Сторона",
        "sequence": "Послідовність ходу",
        "turn_track": "Шкала ходів",
        "turn": "Хід",
        "from_turn": "з ходу {t}",
        "turn_n": "хід {t}",
        "reinforcements": "Графік підкріплень",
        "setup": "Розстановка",
        "sources": "Джерела таблиць",
        "sections": "Згадані розділи",
        "language_note": "Назви подано мовою «{lang}», де правила мають переклад ({n} з {total}); решта — англійською.",
        "language_note_all": "Усі назви подано мовою «{lang}».",
        "no_effect": "без ефекту",
        "no_roll": "без кидка",
        "column": "стовпець",
        "columns": "стовпці",
    },
}

# Unit and terrain property names the aid knows how to caption; others are shown as written.
PROP_WORDS: dict[str, dict[str, str]] = {
    "en": {"attack": "Attack", "defense": "Defense", "move": "Move", "steps": "Steps", "cost": "Cost",
           "move_cost": "move cost"},
    "ru": {"attack": "Атака", "defense": "Защита", "move": "Движение", "steps": "Шаги", "cost": "Цена",
           "move_cost": "стоимость движения"},
    "pl": {"attack": "Atak", "defense": "Obrona", "move": "Ruch", "steps": "Kroki", "cost": "Koszt",
           "move_cost": "koszt ruchu"},
    "uk": {"attack": "Атака", "defense": "Оборона", "move": "Рух", "steps": "Кроки", "cost": "Ціна",
           "move_cost": "вартість руху"},
}


def key_words(key: str) -> str:
    """A property or parameter name as words: `no_armor_shift` -> `no armor shift`."""
    return key.replace("_", " ")


def num_text(v) -> str:
    """A number as players read it: 1/2 stays a fraction, whole fractions print as integers."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        return f"{v.numerator}/{v.denominator}"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def signed(v) -> str:
    text = num_text(v)
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool) and v > 0:
        return "+" + text
    return text.replace("-", "−") if text.startswith("-") else text


class Labels:
    """Labels of declared names in one language, falling back to English; records fallbacks."""

    def __init__(self, game: GameDef, lang: str = "en") -> None:
        self.game = game
        self.lang = lang if lang in LANGS else "en"
        self.translated: set[str] = set()
        self.fallback: set[str] = set()

    def header(self, header: ast.Header) -> str:
        if self.lang != "en":
            if self.lang in header.translations:
                self.translated.add(header.name)
                return header.translations[self.lang]
            self.fallback.add(header.name)
        return header.label or key_words(header.name)

    def of(self, decl) -> str:
        return self.header(decl.header)

    def name(self, name: str) -> str:
        decl = self.game.names.get(name)
        if decl is not None:
            return self.of(decl)
        if name in self.game.scenarios:
            return self.of(self.game.scenarios[name])
        return key_words(name)

    def ui(self, key: str, **kw) -> str:
        text = STRINGS.get(self.lang, {}).get(key) or STRINGS["en"].get(key, key)
        return text.format(**kw) if kw else text

    def prop(self, key: str) -> str:
        return PROP_WORDS.get(self.lang, {}).get(key) or PROP_WORDS["en"].get(key) or key_words(key)


_CMP_WORDS = {"==": "is", "!=": "is not", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_BUILTIN_WORDS = {"terrain": "terrain", "edge": "hexside", "units_at": "units in {0}", "count": "number of {0}",
                  "units_of": "units of {0}", "occupied": "occupied locations", "adjacent": "locations next to {0}",
                  "distance": "distance from {0} to {1}", "odds": "odds of {0} to {1}",
                  "difference": "{0} minus {1}", "allowed": "{1} allowed on the {0}", "abs": "|{0}|",
                  "round_up": "{0} rounded up", "round_down": "{0} rounded down", "sum": "total of {0}",
                  "first": "first of {0}", "enemies": "enemies of {0}", "allies": "allies of {0}",
                  "is_enemy": "{0} at war with {1}", "locations": "locations", "sides": "every side",
                  "reachable": "locations {0} can reach", "traceable": "a {0} path from {1} to {2}",
                  "eliminated_units": "eliminated units", "hand": "hand of {0}", "deck_size": "cards left in {0}",
                  "loc": "{0}"}
_SPECIAL_NAMES = {"active": "the active side", "none": "none", "turn": "turn", "phase": "phase",
                  "first_turn": "first turn", "last_turn": "last turn", "turn_order": "turn order"}


def _literal(e) -> bool:
    """A written value (a string, a number, a location id) rather than a name bound in play."""
    if isinstance(e, (ast.Str, ast.Num, ast.Bool, ast.OddsLit)):
        return True
    return isinstance(e, ast.Call) and e.func == "loc" and bool(e.args) and isinstance(e.args[0], ast.Str)


class Words:
    """A rule expression read out in words: declared names by their labels, functions by their
    labels, `==` as "is", `>=` as "≥". Not a translation: connectives stay English."""

    def __init__(self, game: GameDef, labels: Labels) -> None:
        self.game = game
        self.labels = labels

    def __call__(self, e: ast.Expr | None) -> str:
        return self.expr(e) if e is not None else ""

    def expr(self, e: ast.Expr, depth: int = 0) -> str:
        w = lambda x: self.expr(x, depth + 1)  # noqa: E731
        if isinstance(e, ast.Num):
            return num_text(e.value)
        if isinstance(e, ast.Str):
            return f"“{e.value}”"
        if isinstance(e, ast.Bool):
            return "yes" if e.value else "no"
        if isinstance(e, ast.NoneLit):
            return "none"
        if isinstance(e, ast.OddsLit):
            return f"{e.attack}-{e.defense}"
        if isinstance(e, ast.Name):
            decl = self.game.names.get(e.id)
            if isinstance(decl, ast.Entity) and decl.kind == "option":
                return self.labels.ui("option_used", option=self.labels.of(decl))
            if decl is not None and not isinstance(decl, ast.VarDecl):
                return self.labels.name(e.id)
            return _SPECIAL_NAMES.get(e.id, key_words(e.id))
        if isinstance(e, ast.Attr):
            if isinstance(e.obj, ast.Name) and e.obj.id in self.game.names:
                return f"{self.labels.name(e.obj.id)} {key_words(e.name)}"
            if isinstance(e.obj, ast.Call) and e.obj.func in ("terrain", "edge"):
                return f"{_BUILTIN_WORDS[e.obj.func]} {key_words(e.name)}"
            return f"{key_words(e.name)} of {w(e.obj)}"
        if isinstance(e, ast.Call):
            decl = self.game.names.get(e.func)
            if isinstance(decl, (ast.Function, ast.Quantity)):
                if decl.header.label:
                    # a label says what the rule computes; literal arguments say of what
                    if any(_literal(a) for a in e.args):
                        return f"{self.labels.of(decl)} ({', '.join(w(a) for a in e.args)})"
                    return self.labels.of(decl)
                return f"{key_words(e.func)}({', '.join(w(a) for a in e.args)})"
            if e.func == "units_in_box" and len(e.args) == 1:
                box = e.args[0]
                return f"units in the {w(box)} box" if isinstance(box, ast.Str) else f"units in {w(box)}"
            pattern = _BUILTIN_WORDS.get(e.func)
            if pattern is not None:
                args = [w(a) for a in e.args] + [""] * 4
                return pattern.format(*args)
            return f"{key_words(e.func)}({', '.join(w(a) for a in e.args)})"
        if isinstance(e, ast.Comprehension):
            where = f" where {w(e.where)}" if e.where is not None else ""
            source = w(e.source)
            el = e.element
            if (e.func in ("any", "all") and isinstance(el, ast.Is) and isinstance(el.obj, ast.Name)
                    and el.obj.id == e.var and e.where is None):
                tag = self.labels.name(el.tag)
                neg = "not " if el.negated else ""
                return f"{'any' if e.func == 'any' else 'all'} of {source} {'is' if e.func == 'any' else 'are'} {neg}{tag}"
            if e.func in ("list", "first") and isinstance(el, ast.Name) and el.id == e.var:
                return f"{source}{where}" if e.func == "list" else f"first of {source}{where}"
            if e.func == "any":
                return f"some {e.var} of {source}{where}: {w(e.element)}"
            if e.func == "all":
                return f"every {e.var} of {source}{where}: {w(e.element)}"
            if e.func == "count":
                if isinstance(el, ast.Name) and el.id == e.var:
                    return f"number of {source}{where}"
                return f"number of {e.var} in {source}{where}"
            if e.func == "sum":
                return f"total of {w(e.element)} for each {e.var} in {source}{where}"
            return f"{e.func} of {w(e.element)} for each {e.var} in {source}{where}"
        if isinstance(e, ast.BinOp):
            op = {"*": "×", "/": "÷", "%": "mod"}.get(e.op, e.op)
            return f"{self._paren(e.left, depth)} {op} {self._paren(e.right, depth)}"
        if isinstance(e, ast.Compare):
            some = self._some(e, depth)
            if some is not None:
                return some
            return f"{w(e.left)} {_CMP_WORDS[e.op]} {w(e.right)}"
        if isinstance(e, ast.And):
            return f"{self._paren(e.left, depth, ast.Or)} and {self._paren(e.right, depth, ast.Or)}"
        if isinstance(e, ast.Or):
            return f"{w(e.left)} or {w(e.right)}"
        if isinstance(e, ast.Not):
            if isinstance(e.operand, ast.Is):
                inner = e.operand
                return f"{w(inner.obj)} is {'' if inner.negated else 'not '}{self.labels.name(inner.tag)}"
            return f"not {self._paren(e.operand, depth, ast.And, ast.Or)}"
        if isinstance(e, ast.Neg):
            return f"−{w(e.operand)}"
        if isinstance(e, ast.Is):
            return f"{w(e.obj)} is {'not ' if e.negated else ''}{self.labels.name(e.tag)}"
        if isinstance(e, ast.In):
            return f"{w(e.item)} {'not in' if e.negated else 'in'} {w(e.collection)}"
        if isinstance(e, ast.Cond):
            return f"if {w(e.test)} then {w(e.then)} else {w(e.orelse)}"
        if isinstance(e, ast.ListLit):
            return ", ".join(w(i) for i in e.items)
        if isinstance(e, ast.Roll):
            return f"roll {e.dice.text()}"
        if isinstance(e, ast.Index):
            return f"{w(e.obj)}[{', '.join(w(a) for a in e.args)}]"
        return type(e).__name__

    def _some(self, e: ast.Compare, depth: int) -> str | None:
        """`count(X) > 0` as "there are X", `count(X) == 0` as "there are no X"."""
        def counted(x):
            if isinstance(x, ast.Call) and x.func == "count" and len(x.args) == 1:
                if isinstance(x.args[0], ast.Call) and x.args[0].func == "edge":  # the features of a hexside
                    return "features on the hexside"
                return self.expr(x.args[0], depth + 1)
            if isinstance(x, ast.Comprehension) and x.func == "count" and isinstance(x.element, ast.Name) and x.element.id == x.var:
                return self.expr(x.source, depth + 1) + (f" where {self.expr(x.where, depth + 1)}" if x.where is not None else "")
            return None

        what, op, n = counted(e.left), e.op, e.right
        if what is None:
            what, op, n = counted(e.right), {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(e.op, e.op), e.left
        if what is None or not isinstance(n, ast.Num):
            return None
        if (op in (">", "!=") and n.value == 0) or (op == ">=" and n.value == 1):
            return f"there are {what}"
        if (op in ("==", "<=") and n.value == 0) or (op == "<" and n.value == 1):
            return f"there are no {what}"
        return None

    def _paren(self, e: ast.Expr, depth: int, *kinds) -> str:
        text = self.expr(e, depth + 1)
        if (kinds and isinstance(e, kinds)) or (not kinds and isinstance(e, (ast.BinOp, ast.Cond))):
            return f"({text})"
        return text
