"""The dashboard's words in Chinese and English: one catalogue, one lookup, the language choice.

Every piece of text the dashboard writes (labels, captions, finding titles and sentences, the
game's words) is a key of ``TEXTS`` with an English and a Chinese text; ``t`` looks one up and
fills its ``{fields}``. Record text (names, record ids) is never in the catalogue: pages escape it
where they print it. The game's own words are used in Chinese (甩牌, 抠底, 炒底, 拖拉机, 主/副).

>>> t("zh", "replay.step_of", step=3, steps=120)
'第 3 步，共 120 步'
>>> t("en", "replay.step_of", step=3, steps=120)
'step 3 of 120'
>>> pick_lang("en", "zh", "zh-CN"), pick_lang(None, None, "en-GB"), pick_lang("xx", None, None)
('en', 'en', 'zh')
"""

from __future__ import annotations

from typing import Literal, TypeGuard

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")
LANG_NAMES: dict[Lang, str] = {"zh": "中文", "en": "English"}
DEFAULT_LANG: Lang = "zh"
"""Chinese first: the language when neither the URL, a setting nor the browser says."""


def is_lang(value: object) -> TypeGuard[Lang]:
    """True for a language the dashboard speaks."""
    return value in LANGS


def pick_lang(url: str | None, setting: str | None, browser: str | None) -> Lang:
    """The language to use: the URL's (``?lang=``), else the setting's
    (``$CHAODIPI_LANG``), else the browser's (``zh-CN`` is Chinese, any other known locale
    English), else Chinese."""
    for choice in (url, setting):
        if is_lang(choice):
            return choice
    if browser:
        return "zh" if browser.lower().startswith("zh") else "en"
    return DEFAULT_LANG


def t(lang: Lang, key: str, **fields: object) -> str:
    """The text of ``key`` in ``lang`` with ``fields`` filled in (KeyError for an unknown key)."""
    en, zh = TEXTS[key]
    text = zh if lang == "zh" else en
    return text.format(**fields) if fields else text


TEXTS: dict[str, tuple[str, str]] = {
    # -- the app: pages, language, sign-in ----------------------------------------------------
    "app.title": ("chaodipi: audited replays", "炒地皮：审计复盘"),
    "page.overview": ("Overview", "总览"),
    "page.replay": ("Replay", "复盘"),
    "page.games": ("Games", "对局"),
    "page.players": ("Players", "牌手"),
    "page.upload": ("Upload", "上传"),
    "lang.label": ("Language · 语言", "语言 · Language"),
    "auth.tenant": ("Tenant: {name}", "租户：{name}"),
    "auth.local": ("signed in as this computer (localhost)", "本机访问，无需登录"),
    "auth.by_key": ("signed in with an API key", "已用 API 密钥登录"),
    "auth.by_oidc": ("signed in as {user}", "已登录：{user}"),
    "auth.heading": ("Sign in", "登录"),
    "auth.needed": (
        "This dashboard answers without sign-in only on this computer. Sign in with an API key "
        "(`chaodipi keys create --tenant NAME` makes one) to see your tenant's games.",
        "本仪表盘只在本机免登录。请用 API 密钥登录（`chaodipi keys create --tenant 租户名` "
        "可生成密钥），查看你的租户的对局。",
    ),
    "auth.key": ("API key", "API 密钥"),
    "auth.key_help": (
        "cdp_… as `chaodipi keys create` printed it",
        "`chaodipi keys create` 打印的 cdp_… 密钥",
    ),
    "auth.sign_in": ("Sign in", "登录"),
    "auth.sign_out": ("Sign out", "退出登录"),
    "auth.other_key": ("Sign in with an API key", "用 API 密钥登录"),
    "auth.bad_key": ("That key is unknown or revoked.", "密钥无效或已吊销。"),
    "auth.oidc": ("Sign in with your account", "用账号登录"),
    "auth.no_tenant": (
        "Your account ({user}) has no tenant: ask the operator to add it to "
        "`[chaodipi.tenants]` in the dashboard's secrets.",
        "你的账号（{user}）没有对应的租户：请管理员把它加入仪表盘 secrets 的 "
        "`[chaodipi.tenants]`。",
    ),
    "common.none": ("–", "–"),
    "common.unknown_time": ("unknown time", "时间不详"),
    "common.no_data": (
        "No games are stored yet. Load the sample games on the Overview page, or upload records.",
        "还没有存储任何对局。可以在“总览”页载入示例对局，或上传记录。",
    ),
    "common.load_samples_link": ("Overview: load sample games", "总览：载入示例对局"),
    "common.upload_link": ("Upload records", "上传记录"),
    "common.open": ("open ▶", "打开 ▶"),
    "common.hand_n": ("hand {n}", "第 {n} 局"),
    # -- the game's words ---------------------------------------------------------------------
    "severity.breach": ("breach", "违规"),
    "severity.scoring": ("scoring error", "计分错误"),
    "severity.warning": ("warning", "提示"),
    "severity.breaches": ("breaches", "违规"),
    "severity.scoring_errors": ("scoring errors", "计分错误"),
    "severity.warnings": ("warnings", "提示"),
    "phase.deal": ("deal", "发牌"),
    "phase.bidding": ("bidding", "叫主"),
    "phase.kitty": ("kitty", "扣底"),
    "phase.play": ("play", "出牌"),
    "phase.scoring": ("scoring", "计分"),
    "phase.match": ("match", "整场"),
    "phase.step": ("step", "步骤"),
    "bid.declare": ("declare", "亮主"),
    "bid.lock": ("lock", "上保险"),
    "bid.overcall": ("overcall", "反主"),
    "bid.chao_di": ("炒底 (re-bury)", "炒底"),
    "bid.kitty_flip": ("kitty flip", "翻底"),
    "bid.bid": ("bid", "叫主"),
    "side.dealer": ("dealer", "庄家"),
    "side.dealer_side": ("dealer side", "庄家方"),
    "side.defender": ("defender", "闲家"),
    "suit.none": ("no trump", "无主"),
    "trump.none": ("no trump yet", "尚未定主"),
    "trump.text": ("level {level}, trump {suit}", "打 {level}，{suit} 为主"),
    "trump.text_nt": ("level {level}, no trump", "打 {level}，无主"),
    "card.big_joker": ("big joker", "大王"),
    "card.little_joker": ("little joker", "小王"),
    "card.joker_face_big": ("JOKER", "大王"),
    "card.joker_face_little": ("JOKER", "小王"),
    "card.trump": ("trump", "主"),
    "legend.red": ("red suits", "红色花色"),
    "legend.trump": ("trump (主)", "主牌"),
    "legend.beat": ("beats the throw", "压住甩牌的牌"),
    "legend.alt": ("legal alternative", "合规的出法"),
    "legend.offence": ("the play in breach", "违规的出牌"),
    "seat.n": ("seat {seat}", "座位 {seat}"),
    "seat.player": ("{name} (seat {seat})", "{name}（座位 {seat}）"),
    "seat.level": ("level {level}", "打 {level}"),
    "seat.cards": ("{n} cards", "{n} 张"),
    "seat.finding": ("finding", "有问题"),
    "level.dealer_up": ("dealer side up {n}", "庄家升 {n} 级"),
    "level.dealer_keeps": ("dealer side keeps the deal", "庄家保庄"),
    "level.swap": ("defenders take the deal", "换庄"),
    "level.defenders_up": ("defenders take the deal and go up {n}", "闲家上台并升 {n} 级"),
    "level.dealer_match": ("dealer side wins the match", "庄家方赢得整场"),
    "level.defenders_match": ("defenders win the match", "闲家赢得整场"),
    "level.unset": ("no result", "无结果"),
    "team.n": ("team {n}", "{n} 队"),
    "ruleset.classic": ("classic", "经典炒地皮"),
    "ruleset.shuangsheng": ("shuangsheng (双升)", "双升"),
    "ruleset.anhui": ("anhui (安徽)", "安徽炒地皮"),
    "ruleset.changshu": ("changshu (常熟)", "常熟炒地皮"),
    "ruleset.eighty": ("eighty (80 fen)", "80 分升级"),
    "ruleset.botzone": ("botzone", "Botzone 双升"),
    "ruleset.godot": ("godot (shengji-godot)", "Godot 升级"),
    # -- finding titles (what each code means) ------------------------------------------------
    "code.DEAL_INVALID": ("the deal is not a whole deck", "发牌不对"),
    "code.CARD_NOT_IN_HAND": ("a card not in that hand", "出了手里没有的牌"),
    "code.OUT_OF_TURN": ("out of turn", "不按顺序出牌"),
    "code.WRONG_CARD_COUNT": ("wrong number of cards", "张数不对"),
    "code.BID_ILLEGAL": ("a bid the rules do not allow", "叫主违规"),
    "code.KITTY_INVALID": ("kitty pick-up or bury does not fit", "拿底或扣底不对"),
    "code.LEAD_MIXED_SUITS": ("a lead of mixed suits", "首攻混了几门"),
    "code.THROW_NOT_ALLOWED": ("a throw (甩牌) where the ruleset has none", "不许甩牌却甩了"),
    "code.THROW_NOT_ENFORCED": ("a failed throw (甩牌) let stand", "甩牌失败却被放过"),
    "code.THROW_ENFORCED_WRONGLY": ("a throw (甩牌) enforced wrongly", "甩牌处罚执行错误"),
    "code.FOLLOW_REVOKE": ("did not follow suit", "没有跟花色"),
    "code.FOLLOW_SHAPE": ("did not follow the lead's shape", "没有跟牌型"),
    "code.TRICK_WINNER_MISMATCH": ("wrong trick winner claimed", "一轮的赢家记错"),
    "code.TRICK_POINTS_MISMATCH": ("wrong trick points claimed", "一轮的分数记错"),
    "code.PENALTY_MISMATCH": ("wrong throw penalty or stake claimed", "甩牌罚分或底金记错"),
    "code.KITTY_MISMATCH": ("wrong kitty (抠底) claimed", "抠底记错"),
    "code.SCORE_MISMATCH": ("wrong defenders' total claimed", "闲家总分记错"),
    "code.LEVEL_MISMATCH": ("wrong level change or match points claimed", "升级或比赛分记错"),
    "code.TRUMP_MISMATCH": ("wrong trump claimed", "主记错"),
    "code.DEALER_MISMATCH": ("wrong dealer", "庄家不对"),
    "code.UNSUPPORTED": ("a rule the ruleset leaves open", "规则集未定的情形"),
    "code.SPLIT_INVALID": ("a declared split that does not fit", "声明的拆法不合"),
    "code.RECORD_INCOMPLETE": ("the record stops early", "记录不完整"),
    "code.other": ("finding {code}", "问题 {code}"),
    # -- finding sentences (from the finding's structured parts) ------------------------------
    "f.deal_deck": (
        "The deal is not {decks} whole decks: {diff}.",
        "发牌不是 {decks} 副整牌：{diff}。",
    ),
    "f.deal_hand": (
        "{player} was dealt {counted}; the ruleset deals {due}.",
        "{player} 发到 {counted}，规则集每人发 {due}。",
    ),
    "f.deal_kitty": (
        "The kitty holds {counted}; the ruleset keeps {due}.",
        "底牌有 {counted}，规则集是 {due}。",
    ),
    "f.one_card": ("1 card", "1 张"),
    "f.cards": ("{n} cards", "{n} 张"),
    "f.extra": ("{n} extra", "多 {n} 张"),
    "f.missing": ("{n} missing", "缺 {n} 张"),
    "f.card_play": (
        "{player} played {cards}, which the hand did not hold.",
        "{player} 出了手里没有的 {cards}。",
    ),
    "f.card_bid": (
        "{player} showed {cards}, which the hand did not hold.",
        "{player} 亮了手里没有的 {cards}。",
    ),
    "f.card_kitty": (
        "{player} buried {cards}, which the hand did not hold.",
        "{player} 扣了手里没有的 {cards}。",
    ),
    "f.out_of_turn": (
        "Play {play} of trick {trick} was made by {recorded}; {expected} was to play.",
        "第 {trick} 轮第 {play} 手应由 {expected} 出，却是 {recorded} 出的。",
    ),
    "f.count_follow": (
        "{player} played {counted} to a lead of {due}.",
        "首家出 {due}，{player} 跟了 {counted}。",
    ),
    "f.count_lead": (
        "{player} led {cards}: not a lead of one shape.",
        "{player} 首攻 {cards}，不成牌型。",
    ),
    "f.count_trick": (
        "Trick {trick} has {recorded} plays; every seat plays once.",
        "第 {trick} 轮有 {recorded} 手出牌，每个座位应各出一次。",
    ),
    "f.bid": (
        "{player}'s {kind} of {cards} is not allowed here.",
        "{player} 用 {cards} {kind}，不合规则。",
    ),
    "f.bid_nobody": ("A bid is not allowed here.", "这次叫主不合规则。"),
    "f.kitty_cards": (
        "{player} picked up {recorded}; the kitty was {expected}.",
        "{player} 拿起的底牌是 {recorded}，实际底牌是 {expected}。",
    ),
    "f.kitty_other": (
        "{player}'s kitty exchange does not fit the kitty or the hand.",
        "{player} 的拿底或扣底不符合底牌或手牌。",
    ),
    "f.mixed": ("{player} led {cards}, which mixes suits.", "{player} 首攻 {cards}，混了几门。"),
    "f.throw_not_allowed": (
        "{player} led {cards}, a throw (甩牌) of several units; this ruleset has no throws: a "
        "lead is one single, pair or tractor.",
        "{player} 首攻 {cards}，是几个牌组的甩牌；这个规则集不许甩牌，首攻只能是一个单张、对子或"
        "拖拉机。",
    ),
    "f.throw_not_enforced": (
        "{player}'s throw {cards} fails — {beats}; the smallest beaten unit {forced} should have "
        "been forced{penalty}, but the table let the throw stand.",
        "{player} 甩牌 {cards} 失败——{beats}；应强制出被压住的最小牌组 {forced}{penalty}，"
        "桌上却让甩牌成立。",
    ),
    "f.penalty_due": (", with a penalty of {n} points", "，并罚 {n} 分"),
    "f.beat": ("{name} holds {cards} over {unit}", "{name} 有 {cards} 压 {unit}"),
    "f.throw_forced_wrong": (
        "{player}'s failed throw forced {recorded}; the rule forces {expected}.",
        "{player} 甩牌失败后被强制出 {recorded}，按规则应强制出 {expected}。",
    ),
    "f.throw_forced_tied": (
        "{player}'s failed throw forced {recorded}; the rule forces one of the tied smallest "
        "units, {options}.",
        "{player} 甩牌失败后被强制出 {recorded}，按规则应强制出并列最小的牌组之一：{options}。",
    ),
    "f.throw_forced_pick": (
        "{player}'s failed throw forced {recorded}, one of the tied smallest units; this ruleset "
        "forces {expected}, the one whose top card comes first in the attempt.",
        "{player} 甩牌失败后被强制出 {recorded}，它是并列最小的牌组之一；这个规则集强制出甩牌中"
        "顶张最先出现的 {expected}。",
    ),
    "f.throw_stood": (
        "The table forced {player}'s throw of {expected}, but the throw stood.",
        "桌上强制了 {player} 的甩牌 {expected}，但这次甩牌本该成立。",
    ),
    "f.revoke": (
        "{player} played {cards} without following suit; {alt} was legal.",
        "{player} 没有跟花色：出了 {cards}，本可以出 {alt}。",
    ),
    "f.shape": (
        "{player} played {cards} without matching the lead's shape; {alt} was legal.",
        "{player} 没有跟牌型：出了 {cards}，应出 {alt}。",
    ),
    "f.winner": (
        "Trick {trick} was claimed for {recorded}; {expected} won it.",
        "第 {trick} 轮记为 {recorded} 赢，实际是 {expected} 赢。",
    ),
    "f.trick_points": (
        "Trick {trick} holds {expected} points; {recorded} were claimed.",
        "第 {trick} 轮有 {expected} 分，记录为 {recorded} 分。",
    ),
    "f.penalty": (
        "The penalty for {player}'s throw in trick {trick} is {expected}; {recorded} was claimed.",
        "第 {trick} 轮 {player} 甩牌的罚分应为 {expected}，记录为 {recorded}。",
    ),
    "f.stake": (
        "Each failed throw (甩牌) charges one stake unit: {expected} in this hand; {recorded} were "
        "claimed.",
        "每次失败的甩牌收一份底金，这一局应为 {expected} 份，记录为 {recorded} 份。",
    ),
    "f.stake_none": (
        "No failed throw (甩牌) of this hand charges a stake unit; {recorded} were claimed.",
        "这一局没有要收底金的失败甩牌，记录却声明了 {recorded} 份底金。",
    ),
    "f.kitty": (
        "The kitty (抠底) is {expected}; {recorded} was claimed.",
        "抠底应为 {expected}，记录为 {recorded}。",
    ),
    "f.score": (
        "The defenders took {expected} points; {recorded} were claimed.",
        "闲家得 {expected} 分，记录为 {recorded} 分。",
    ),
    "f.level": (
        "The level change is {expected}; {recorded} was claimed.",
        "升级应为 {expected}，记录为 {recorded}。",
    ),
    "f.match_points": (
        "The defenders' {points} points give match points for the deal, not levels: "
        "{expected}; {recorded} was claimed.",
        "闲家得 {points} 分，这一局按比赛分计、不升级：应为{expected}，记录为{recorded}。",
    ),
    "f.points_dealer": ("the dealer's side {n} each", "庄家方每人 {n} 分"),
    "f.points_defenders": ("the defenders {n} each", "闲家每人 {n} 分"),
    "f.points_none": ("none", "没有比赛分"),
    "f.trump": (
        "Trump is {expected}; {recorded} was claimed.",
        "主应为 {expected}，记录为 {recorded}。",
    ),
    "f.dealer": (
        "The dealer is {expected}; {recorded} was claimed.",
        "庄家应为 {expected}，记录为 {recorded}。",
    ),
    "f.next_dealer": (
        "{expected} deals next; {recorded} was claimed.",
        "下一局应由 {expected} 坐庄，记录为 {recorded}。",
    ),
    "f.dealer_bidding": (
        "The bidding makes {expected} the dealer; the record says {recorded}.",
        "按叫主的结果应由 {expected} 坐庄，记录为 {recorded}。",
    ),
    "f.unsupported": (
        "The record needs a rule the ruleset leaves open; the audit does not guess.",
        "这份记录需要一条规则集没有定的规则，审计不作猜测。",
    ),
    "f.unsupported_rules": (
        "The record needs rules no ruleset field models (settings of the program that wrote "
        "it); nothing is checked.",
        "这份记录用到的规则（写出它的程序的设置）没有任何规则集字段能表达，审计不作任何检查。",
    ),
    "f.unsupported_dealer": (
        "A later hand needs its dealer, whom the match decided, and the record does not say; "
        "nothing is checked from the bidding on.",
        "以后各局需要知道由整场比赛决定的庄家，记录却没有写明；从叫主起不作检查。",
    ),
    "f.unsupported_levels": (
        "The first hand's teams stand at different levels (team 0 at {zero}, team 1 at {one}), "
        "and the ruleset does not say which level is bid; nothing is checked from the bidding on.",
        "第一局两队的级不同（0 队打 {zero}，1 队打 {one}），规则集没有说叫哪一级；从叫主起不作"
        "检查。",
    ),
    "f.unsupported_nobody": (
        "Nobody declared, and the ruleset does not say how trump is then chosen; the audit does "
        "not guess.",
        "无人亮主，规则集没有说这时怎样定主，审计不作猜测。",
    ),
    "f.split": (
        "{player}'s declared split does not fit the lead; the canonical split is used.",
        "{player} 声明的拆法不合首攻的牌，改用规范拆法。",
    ),
    "f.incomplete": (
        "The hand is not played out ({left}); kitty, score and level are not checked.",
        "这一局没有打完（{left}）：不检查底牌、分数和升级。",
    ),
    "f.cards_left": ("{name} has {n} left", "{name} 还剩 {n} 张"),
    "f.incomplete_no_trick": (
        "No trick was played; kitty, score and level are not checked.",
        "一轮都没有出：不检查底牌、分数和升级。",
    ),
    "f.incomplete_source": (
        "The record's source says it stops early.",
        "记录的来源说明它提前结束。",
    ),
    "f.generic": (
        "Expected {expected}; recorded {recorded}.",
        "应为 {expected}，记录为 {recorded}。",
    ),
    "f.generic_player": ("{player}: {title}.", "{player}：{title}。"),
    "f.generic_none": ("{title}.", "{title}。"),
    "f.decks": ("{n} copies of each of the 54 cards", "54 种牌各 {n} 张"),
    "f.no_further": ("no further hands", "不应再打"),
    "f.nothing": ("nothing", "无"),
    "f.auditor_words": ("The auditor's words: {message}", "审计器原文：{message}"),
    # -- the finding panel --------------------------------------------------------------------
    "ev.expected": ("expected", "应为"),
    "ev.recorded": ("recorded", "记录为"),
    "ev.alt": ("legal alternative", "合规的出法"),
    "ev.beaten_by": ("beaten by", "被压住"),
    "ev.over": ("over", "压"),
    "ev.forced": ("forced unit", "强制出的牌组"),
    "ev.forced_options": ("tied units, any may be forced", "并列最小、都可强制出的牌组"),
    "ev.extra": ("extra", "多出"),
    "ev.missing": ("missing", "缺少"),
    "ev.more_cards": ("… and {n} more", "……还有 {n} 种"),
    "ev.penalty_due": ("penalty due", "应罚分"),
    "ev.detail": ("detail", "细节"),
    "rule.open": ("Rule {rule}: {title}", "规则 {rule}：{title}"),
    "rule.open_bare": ("Rule {rule}", "规则 {rule}"),
    "rule.parent": (
        "The rules document has no section {rule} of its own; this is {parent}.",
        "规则文档中没有单独的 {rule} 一节；以下是 {parent}。",
    ),
    "rule.other_lang": (
        "Not in the English rules (docs/rules.md) yet; the Chinese text follows.",
        "中文规则（docs/rules.zh.md）中暂无此节，以下为英文原文。",
    ),
    "rule.missing": (
        "The rules documents have no section {rule}.",
        "规则文档中没有 {rule} 这一节。",
    ),
    # -- the replay page ----------------------------------------------------------------------
    "replay.find": ("Open another game", "换一局"),
    "replay.game": ("Game", "对局"),
    "replay.game_help": (
        "Type a record id or game id to search all stored games.",
        "输入记录编号或对局编号，可在所有对局中查找。",
    ),
    "replay.search": (
        "Find a game (record id, player, game id)",
        "查找对局（记录编号、牌手、对局编号）",
    ),
    "replay.no_game": ("No stored game {game}.", "没有找到对局 {game}。"),
    "replay.not_replayed": (
        "The audit checked nothing in this record, so there are no steps to show; its findings "
        "say why.",
        "审计没有检查这份记录的任何内容，所以没有可以复盘的步骤；原因见下面的问题。",
    ),
    "replay.unreadable": (
        "The auditor could not replay this record: {problems}",
        "审计器无法复盘这份记录：{problems}",
    ),
    "replay.caption": (
        "Record {record} · {ruleset} · played {played} · defenders {points} points",
        "记录 {record} · {ruleset} · {played} · 闲家 {points} 分",
    ),
    "replay.result": ("result: {result}", "结果：{result}"),
    "replay.stored": (
        "stored audit: breaches {breaches}, scoring errors {scoring}, warnings {warnings}",
        "存储的审计：{breaches} 处违规，{scoring} 处计分错误，{warnings} 条提示",
    ),
    "replay.differs": (
        "The current auditor's findings differ from the stored audit; the steps show the current "
        "auditor's findings.",
        "当前审计器的结果与存储的审计不同；各步显示的是当前审计器的结果。",
    ),
    "replay.first": ("Start", "开始"),
    "replay.prev_trick": ("Trick back", "上一轮"),
    "replay.prev_play": ("Back", "上一手"),
    "replay.next_play": ("Forward", "下一手"),
    "replay.next_trick": ("Trick on", "下一轮"),
    "replay.last": ("End", "结束"),
    "replay.prev_finding": ("Previous finding", "上一个问题"),
    "replay.next_finding": ("Next finding", "下一个问题"),
    "replay.jump": ("Jump to trick…", "跳到第几轮…"),
    "replay.trick_n": ("trick {n}", "第 {n} 轮"),
    "replay.step": ("Step", "步骤"),
    "replay.step_of": ("step {step} of {steps}", "第 {step} 步，共 {steps} 步"),
    "replay.shortcuts": ("Keyboard shortcuts", "快捷键"),
    "keys.play": ("one play", "一手"),
    "keys.trick": ("one trick", "一轮"),
    "keys.finding": ("next / previous finding", "下一个 / 上一个问题"),
    "keys.ends": ("first / last step", "第一步 / 最后一步"),
    "replay.findings_here": ("findings at this step: {n}", "本步有 {n} 个问题"),
    "replay.no_finding": ("No finding at this step", "本步没有问题"),
    "replay.next_at": (
        "Next finding at step {step} ({where}).",
        "下一个问题在第 {step} 步（{where}）。",
    ),
    "replay.clean": ("The audit found nothing wrong in this game.", "审计没有发现这局有任何问题。"),
    "replay.all_findings": ("All findings ({n})", "全部问题（{n}）"),
    "replay.trick_caption": ("Trick {trick}", "第 {trick} 轮"),
    "replay.won_by": (
        "Trick {trick}: won by {name} ({points} points)",
        "第 {trick} 轮：{name} 赢（{points} 分）",
    ),
    "replay.no_cards": ("no cards on the table", "桌上没有牌"),
    "replay.step_play": ("Trick {trick}, play {play} of 4", "第 {trick} 轮，第 {play} 手"),
    "replay.step_trick_end": ("Trick {trick} complete", "第 {trick} 轮结束"),
    "replay.info_trump": ("trump (主)", "主"),
    "replay.info_points": ("defenders so far", "闲家已得"),
    "replay.points": ("{n} points", "{n} 分"),
    "replay.info_bidding": ("bidding", "叫主"),
    "replay.no_bids": ("no bids recorded", "没有叫主记录"),
    "replay.info_kitty": ("kitty now", "当前底牌"),
    "replay.info_exchanges": ("kitty exchanges (扣底 / 炒底)", "扣底与炒底"),
    "replay.buried": ("{name} buried", "{name} 扣下"),
    "replay.not_declared": ("not yet declared", "尚未定主"),
    "replay.chart_title": ("Defenders' points, trick by trick", "闲家得分（逐轮）"),
    "replay.chart_computed": ("computed", "计算"),
    "replay.chart_recorded": ("recorded (the table's claims)", "记录（桌上的声明）"),
    "replay.chart_findings": ("findings", "问题"),
    "replay.chart_trick": ("trick", "轮"),
    "replay.chart_points": ("points", "分"),
    "replay.chart_final": ("final", "终局"),
    "replay.link": ("Link to this step", "本步链接"),
    "replay.link_help": (
        "Copy it with the button at its right; it opens this game at this step.",
        "用右侧按钮复制；打开后就是这局的这一步。",
    ),
    "replay.download": ("Take it with you", "下载"),
    "replay.no_notation": (
        "This record cannot be written as notation: {reason}",
        "这份记录无法写成记谱：{reason}",
    ),
    "replay.download_text": ("Annotated replay (notation, .txt)", "带批注的复盘（记谱，.txt）"),
    "replay.download_json": (
        "Record and stored audit (protobuf JSON)",
        "记录与存储的审计（protobuf JSON）",
    ),
    "replay.download_note": (
        "Both come from the stored audit: the notation has every finding as a comment where it "
        "happened; the JSON is the game as the service's `GetGame` answers it.",
        "两者都取自存储的审计：记谱在每个问题发生处加了注释；JSON 是服务的 `GetGame` 返回的对局。",
    ),
    # -- scoring breakdown --------------------------------------------------------------------
    "score.heading": ("How the defenders' score is made up", "闲家得分的构成"),
    "score.tricks": ("points in the tricks the defenders won", "闲家赢的轮次中的分"),
    "score.penalties": ("throw (甩牌) penalties", "甩牌罚分"),
    "score.kitty": (
        "kitty (抠底): {points} points × {multiplier}",
        "抠底：底分 {points} × {multiplier} 倍",
    ),
    "score.kitty_none": (
        "kitty (抠底): the dealer side won the last trick",
        "抠底：最后一轮庄家方赢，不抠底",
    ),
    "score.last_trick": ("the last trick counted again", "最后一轮的分再算一次"),
    "score.total": ("defenders' total", "闲家总分"),
    "score.claimed": ("claimed by the table: {n}", "桌上声明：{n}"),
    "score.result": ("level change: {result}", "升级：{result}"),
    "score.match_points": (
        "This ruleset's table gives match points for the deal, not levels.",
        "这个规则集按比赛分计这一局，不升级。",
    ),
    "score.not_scored": (
        "This hand was not scored (the record stops early).",
        "这一局没有计分（记录不完整）。",
    ),
    # -- endgame analysis ---------------------------------------------------------------------
    "analysis.heading": ("Endgame analysis: what each play cost", "残局分析：每一手的得失"),
    "analysis.about": (
        "The last tricks solved with every hand known, both sides playing perfectly: each "
        "play's cost is the points its side lost against its best play (0 for a best play), "
        "with the best play and how perfect play goes on from it. Analysis, not findings: "
        "the audit's counts do not change.",
        "已知四家手牌，按双方都最优出牌求解最后几轮：每一手的损失是这一方比最优出法少得"
        "（或多失）的分数（最优出法为 0），并给出最优出法及其后的最优变化。"
        "这是分析，不是问题：审计的统计不变。",
    ),
    "analysis.window": ("Tricks, from the hand's end", "最后几轮"),
    "analysis.go": ("Analyse the last tricks", "分析最后几轮"),
    "analysis.summary": (
        "Tricks {first}–{last}: the defenders had {before} points; they ended with {actual} "
        "as played, {perfect} under perfect play from trick {first} ({nodes} positions searched).",
        "第 {first}–{last} 轮：闲家此前 {before} 分；实际打完得 {actual} 分，"
        "从第 {first} 轮起双方最优则得 {perfect} 分（搜索了 {nodes} 个局面）。",
    ),
    "analysis.where": ("play", "出牌"),
    "analysis.player": ("player", "牌手"),
    "analysis.played": ("played", "所出"),
    "analysis.cost": ("cost (points)", "损失（分）"),
    "analysis.best": ("best play", "最优出法"),
    "analysis.line": ("perfect play from there", "其后的最优变化"),
    "analysis.lost": ("Points lost in the window: {seats}", "这几轮各人损失：{seats}"),
    "analysis.kitty_missed": (
        "Missed 抠底: {player}'s {cards} (trick {trick}, play {play}) let the kitty go.",
        "错失抠底：{player} 在第 {trick} 轮第 {play} 手出的 {cards} 丢掉了底牌。",
    ),
    "analysis.kitty_gave_away": (
        "Gave away 抠底: {player}'s {cards} (trick {trick}, play {play}) let the defenders take "
        "the kitty.",
        "送出抠底：{player} 在第 {trick} 轮第 {play} 手出的 {cards} 让闲家抠了底。",
    ),
    "analysis.not_unreadable": (
        "The record cannot be replayed: not analysed.",
        "记录无法复盘，未分析。",
    ),
    "analysis.not_unsupported": (
        "The record needs rules no ruleset models, or stops early: not analysed.",
        "记录需要规则集未涵盖的规则，或记录不完整，未分析。",
    ),
    "analysis.not_breach": (
        "The audit found a breach in the last tricks: the position is not the hand's, so it "
        "is not analysed.",
        "审计在最后几轮发现了违规，局面与实际不符，未分析。",
    ),
    "analysis.not_budget": (
        "The search hit its limit of positions before it was done: not analysed (never "
        "guessed). Fewer tricks may be analysed.",
        "搜索局面数达到上限仍未完成，未分析（不作猜测）。减少轮数或可分析。",
    ),
    "players.endgame_heading": ("Endgames: points lost per hand", "残局：每局损失的分数"),
    "players.endgame_about": (
        "The endgame solver over each player's latest {n} hands: the points their own plays "
        "cost their side against perfect play in the last tricks, averaged over the hands "
        "analysed. Analysis, not findings.",
        "用残局求解器分析每位牌手最近 {n} 局：他们自己的出牌在最后几轮比最优出法让本方损失的分数，"
        "按已分析的局取平均。这是分析，不是问题。",
    ),
    "players.endgame_go": ("Analyse their endgames", "分析残局"),
    "players.endgame_value": (
        "{points} points lost per hand ({n} hands analysed)",
        "每局损失 {points} 分（分析了 {n} 局）",
    ),
    "players.endgame_skipped": ("; {n} not analysed", "；{n} 局未分析"),
    # -- re-audit -----------------------------------------------------------------------------
    "reaudit.heading": ("Re-audit this game", "重新审计这局"),
    "reaudit.about": (
        "Audit the stored record again, under its own ruleset or another, through the service's "
        "audit path; the stored audit is not changed. Below: what changes against the stored "
        "audit.",
        "用服务的审计流程重新审计存储的记录，可选它自己的规则集或其他规则集；存储的审计不会改变。"
        "下面列出与存储的审计相比的变化。",
    ),
    "reaudit.ruleset": ("Ruleset", "规则集"),
    "reaudit.own": ("its own ({ruleset})", "它自己的（{ruleset}）"),
    "reaudit.go": ("Re-audit", "重新审计"),
    "reaudit.same": ("The same findings as the stored audit.", "与存储的审计结果相同。"),
    "reaudit.appears": ("new", "新增"),
    "reaudit.disappears": ("gone", "消失"),
    "reaudit.changes": ("changed", "变化"),
    "reaudit.counts": (
        "{appear} new, {gone} gone, {changed} changed",
        "新增 {appear} 个，消失 {gone} 个，变化 {changed} 个",
    ),
    "reaudit.score": ("Defenders' points: {old} → {new}", "闲家得分：{old} → {new}"),
    "reaudit.level": ("Level change: {old} → {new}", "升级：{old} → {new}"),
    "reaudit.where": ("where", "位置"),
    "reaudit.what": ("what", "变化"),
    "reaudit.finding": ("finding", "问题"),
    # -- overview -----------------------------------------------------------------------------
    "overview.title": ("炒地皮 Chao Di Pi audits", "炒地皮审计"),
    "overview.database": ("Database: `{url}`", "数据库：`{url}`"),
    "overview.empty": ("The database is empty", "数据库是空的"),
    "overview.empty_text": (
        "Nothing has been stored yet. Load a set of generated sample games (hands of every "
        "ruleset and two matches, about one in five with a planted rule breach) to see the "
        "dashboard at work, or upload your own records.",
        "还没有存储任何内容。可以载入一组生成的示例对局（每种规则集的若干局和两场整场比赛，"
        "约五分之一带有预置的违规），看看仪表盘怎么用；或者上传你自己的记录。",
    ),
    "overview.load": ("Load sample games", "载入示例对局"),
    "overview.loading": (
        "Generating, auditing and storing sample games…",
        "正在生成、审计并存储示例对局……",
    ),
    "overview.upload_instead": ("Upload records instead", "改为上传记录"),
    "overview.loaded": (
        "Sample games loaded: open one with findings below and step to its breach.",
        "示例对局已载入：打开下面有问题的一局，步进到违规处。",
    ),
    "overview.games": ("Games", "对局"),
    "overview.with_findings": ("With findings", "有问题的对局"),
    "overview.breaches": ("Breaches", "违规"),
    "overview.players": ("Players", "牌手"),
    "overview.flagged": ("Games with findings", "有问题的对局"),
    "overview.all_clean": ("Every stored game is clean.", "所有对局都没有问题。"),
    "overview.latest": ("Latest games", "最新对局"),
    "overview.by_code": ("Findings by code", "按代码统计问题"),
    "overview.no_findings": ("No findings.", "没有问题。"),
    "overview.clean": ("clean", "无问题"),
    "chart.findings": ("findings", "问题数"),
    "chart.games": ("games", "对局数"),
    "chart.severity": ("severity", "严重程度"),
    "chart.code": ("code", "代码"),
    # -- games --------------------------------------------------------------------------------
    "games.title": ("Games", "对局"),
    "games.search": ("Search", "搜索"),
    "games.search_help": (
        "A record id, game id, player id or name (any part of it)",
        "记录编号、对局编号、牌手编号或名字（可只输入一部分）",
    ),
    "games.search_placeholder": ("record id, player or game id", "记录编号、牌手或对局编号"),
    "games.ruleset": ("Ruleset", "规则集"),
    "games.any": ("any", "不限"),
    "games.player": ("Player", "牌手"),
    "games.anyone": ("anyone", "不限"),
    "games.code": ("Finding code", "问题代码"),
    "games.dates": ("Played between", "日期范围"),
    "games.state": ("Games", "对局"),
    "games.state_all": ("all", "全部"),
    "games.state_clean": ("clean", "无问题"),
    "games.state_findings": ("with findings", "有问题"),
    "games.filters": ("Filters", "筛选"),
    "games.count": (
        "{total} games match; page {page} of {pages} ({first}–{last}), latest played first.",
        "共 {total} 局符合；第 {page} / {pages} 页（第 {first}–{last} 局），按对局时间从新到旧。",
    ),
    "games.none": ("No game matches.", "没有符合的对局。"),
    "games.prev": ("Previous page", "上一页"),
    "games.next": ("Next page", "下一页"),
    "games.page": ("Page", "页码"),
    "games.col_record": ("record", "记录"),
    "games.col_ruleset": ("ruleset", "规则集"),
    "games.col_played": ("played", "时间"),
    "games.col_players": ("players", "牌手"),
    "games.col_findings": ("findings", "问题"),
    "games.col_points": ("defenders", "闲家得分"),
    "games.col_result": ("result", "结果"),
    "games.findings_cell": (
        "{b} breaches · {s} scoring · {w} warnings",
        "违规 {b} · 计分 {s} · 提示 {w}",
    ),
    "games.by_code": ("Findings by code", "按代码统计问题"),
    "games.no_findings": ("No findings in the games selected.", "所选对局中没有问题。"),
    # -- players ------------------------------------------------------------------------------
    "players.title": ("Players", "牌手"),
    "players.none": ("No player has a stored hand yet.", "还没有牌手的对局记录。"),
    "players.pick": ("Player", "牌手"),
    "players.compare": ("Compare with", "对比"),
    "players.nobody": ("nobody", "不对比"),
    "players.period": ("Group hands by", "分组方式"),
    "players.period_auto": ("auto", "自动"),
    "players.period_day": ("day", "日"),
    "players.period_week": ("week", "周"),
    "players.period_month": ("month", "月"),
    "players.period_match": ("match", "整场"),
    "players.summary": ("At a glance", "概览"),
    "players.hands": ("hands", "局数"),
    "players.as_dealer": ("win rate as dealer side (won / decided)", "坐庄胜率（赢 / 有结果）"),
    "players.as_defender": ("win rate as defenders (won / decided)", "闲家胜率（赢 / 有结果）"),
    "players.team_points": ("defenders' points per defending hand", "做闲家时每局闲家得分"),
    "players.own_points": ("own trick points per defending hand", "做闲家时每局自己赢的分"),
    "players.throws": ("throws (甩牌) that stood", "甩牌成功"),
    "players.kou_di": ("kitty captures (抠底), bonus points", "抠底次数与底分"),
    "players.levels": ("levels gained / conceded", "本方升级 / 对方升级"),
    "players.per_match": ("levels per match (net)", "每场净升级"),
    "players.breaches": ("breaches per 100 hands", "每百局违规"),
    "players.rate": ("{pct} ({won} / {of})", "{pct}（{won} / {of}）"),
    "players.kou_value": ("{n} captures, {points} points", "{n} 次，{points} 分"),
    "players.levels_value": ("+{gained} / −{conceded}", "升 {gained} 级 / 对方升 {conceded} 级"),
    "players.per_match_value": ("{value} a match ({n} played)", "每场 {value}（共 {n} 场）"),
    "players.no_matches": ("no match", "没有整场比赛"),
    "players.trend_heading": ("Over time ({period})", "随时间变化（按{period}）"),
    "players.trend_win": (
        "Win rate by period (dealer side / defenders)",
        "各时段胜率（坐庄 / 闲家）",
    ),
    "players.trend_points": ("Defenders' points per defending hand", "做闲家时每局闲家得分"),
    "players.trend_breaches": ("Breaches per 100 hands", "每百局违规"),
    "players.trend_levels": ("Levels gained, net", "净升级"),
    "players.as_dealer_short": ("as dealer side", "坐庄"),
    "players.as_defender_short": ("as defenders", "做闲家"),
    "players.period_axis": ("period", "时段"),
    "players.value_axis": ("value", "数值"),
    "players.rolling": (
        "Rates and averages are rolling over the last {n} periods, weighted by hands; a period "
        "with no hand of that kind leaves a gap.",
        "比率和平均值按最近 {n} 个时段滑动计算，按局数加权；某时段没有该类局时留空。",
    ),
    "players.by_code": ("Breaches per 100 hands, by code", "各代码每百局违规"),
    "players.no_breaches": ("No breach charged to these players.", "这些牌手没有违规记录。"),
    "players.all": ("All players", "全部牌手"),
    "players.col_player": ("player", "牌手"),
    "players.col_name": ("name", "名字"),
    "players.col_hands": ("hands", "局数"),
    "players.col_dealer_rate": ("win % as dealer side", "坐庄胜率 %"),
    "players.col_defender_rate": ("win % as defenders", "闲家胜率 %"),
    "players.col_points": ("points per defending hand", "闲家每局得分"),
    "players.col_throws": ("throws stood %", "甩牌成功 %"),
    "players.col_kou": ("抠底", "抠底"),
    "players.col_breaches": ("breaches per 100", "每百局违规"),
    # -- upload -------------------------------------------------------------------------------
    "upload.title": ("Upload records", "上传记录"),
    "upload.about": (
        "Record files, one or many, in any of these formats (each file's is recognised from its "
        "name and content): {formats}. Every record is audited and stored with its findings; a "
        "file that cannot be read is reported and the others are still stored. Uploads go to the "
        "tenant you are signed in as.",
        "可上传一个或多个记录文件，格式可以是以下任何一种（按文件名和内容自动识别）：{formats}。"
        "每份记录都会审计并连同结果存储；读不了的文件会报告出来，其他文件照常存储。上传的记录归你"
        "登录的租户。",
    ),
    "upload.format_text": ("text notation (`.txt`)", "文本记谱（`.txt`）"),
    "upload.format_pb": ("protobuf (`.pb`)", "protobuf（`.pb`）"),
    "upload.format_json": (
        "protobuf JSON (`.json`, `.jsonl`)",
        "protobuf JSON（`.json`、`.jsonl`）",
    ),
    "upload.format_eighty": (
        "80-fen-shengji game replays (`.json`)",
        "80 分升级网页游戏的对局回放（`.json`）",
    ),
    "upload.format_botzone": (
        "Botzone judge logs of 双升 (`.json`)",
        "Botzone 双升裁判程序的对局日志（`.json`）",
    ),
    "upload.format_godot": (
        "shengji-godot game logs (`.json`)",
        "`shengji-godot` 游戏的对局日志（`.json`）",
    ),
    "upload.files": ("Record files", "记录文件"),
    "upload.go": ("Audit and store", "审计并存储"),
    "upload.working": ("Auditing and storing…", "正在审计并存储……"),
    "upload.summary": (
        "{stored} stored, {duplicates} already stored, {rejected} rejected.",
        "存储 {stored} 份，已存在 {duplicates} 份，拒收 {rejected} 份。",
    ),
    "upload.rejected": (
        "{file}: record {record} rejected: {error}",
        "{file}：记录 {record} 被拒收：{error}",
    ),
    "upload.conflicts": (
        "{n} not stored: another record of the same id is stored.",
        "未存储 {n} 份：已存储的另一份记录用了同一个编号。",
    ),
    "upload.conflict": (
        "{file}: record {record} not stored, its id names another stored record: {error}",
        "{file}：记录 {record} 未存储，它的编号已属于另一份已存储的记录：{error}",
    ),
    "upload.problem": ("{problem}", "无法读取：{problem}"),
    "upload.note": ("{note}", "说明：{note}"),
    "upload.col_file": ("file", "文件"),
    "upload.col_record": ("record", "记录"),
    "upload.col_status": ("status", "状态"),
    "upload.col_codes": ("codes", "问题代码"),
    "upload.col_replay": ("replay", "复盘"),
    "upload.status_stored": ("stored", "已存储"),
    "upload.status_duplicate": ("already stored", "已存在"),
    "upload.status_rejected": ("rejected", "拒收"),
    "upload.status_conflict": ("id taken by another record", "编号已被占用"),
    "upload.replay_link": ("Replay {record}{hand} ({status})", "复盘 {record}{hand}（{status}）"),
}
"""Every text of the dashboard: key → (English, Chinese)."""
