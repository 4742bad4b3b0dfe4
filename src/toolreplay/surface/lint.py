"""Description lint: text in a tool surface that speaks to the model rather than to the person reading it.

Applied to every tool's description and title, every description inside its input schema, and each server's
instructions. Before matching, the text is *unmasked*: HTML entities decoded, NFKC-normalized, case-folded,
invisible and bidirectional characters removed and whitespace collapsed, so an instruction hidden with escapes,
zero-width characters or odd case is still seen. Each rule has an id and a rationale (docs/checks.md); a config
accepts one finding with a reason.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONValue
from toolreplay.core.records import record
from toolreplay.surface.model import Surface, SurfaceTool
from toolreplay.surface.reading import View, confusables, entities_decoded, hidden, plain, views
from toolreplay.surface.references import steers_another
from toolreplay.surface.stems import Unread, indexed, stems_of

if TYPE_CHECKING:
    from toolreplay.surface.judge import Judge


class LintRule(enum.Enum):
    """A kind of text a description should not hold."""

    INVISIBLE = "invisible-character"
    BIDI = "bidi-control"
    INSTRUCTION = "model-instruction"
    MARKUP = "hidden-markup"
    SENSITIVE_PATH = "sensitive-path"
    ADDRESS = "unexpected-address"
    SHADOWING = "cross-server-reference"
    BLOB = "encoded-blob"
    ORDER = "order-to-the-model"
    SECRECY = "secrecy-toward-the-user"
    CONSENT = "claimed-consent"
    OVERRIDE = "overrides-other-guidance"
    ROLE = "role-change"
    STEERING = "steers-other-tools"
    SECRET_REQUEST = "asks-for-secrets"
    DISGUISED = "disguised-instruction"
    JUDGED = "judged-suspect"
    JUDGE_FAILED = "judge-failed"


RATIONALE: dict[LintRule, str] = {
    LintRule.INVISIBLE: "zero-width, tag and other format characters a person never sees but a model reads",
    LintRule.BIDI: "bidirectional controls reorder what a person sees, so the text read is not the text shown",
    LintRule.INSTRUCTION: "phrases aimed at the model (ignore previous instructions, do not tell the user, before "
    "using this tool...), the shape of tool poisoning",
    LintRule.MARKUP: "tags such as <IMPORTANT> or <system>, and HTML comments, that a client's display hides",
    LintRule.SENSITIVE_PATH: "paths of secrets (~/.ssh, id_rsa, .env, credentials) a tool has no reason to name",
    LintRule.ADDRESS: "URLs and e-mail addresses, where a description needs none: where data may be sent",
    LintRule.SHADOWING: "a reference to another server's tool, the shape of a server that steers calls to others",
    LintRule.BLOB: "long base64 or hex runs: instructions or data no reviewer can read",
    LintRule.ORDER: "text addressed to the model reading it (the AI, the assistant, models reading this) that asks "
    "for an action: a tool's description says what the tool does, it gives its reader no orders; in any text, a "
    "standing order to act on the person's accounts every session, which no one asked for",
    LintRule.SECRECY: "secrecy or urgency toward the person or the operator (quietly, without asking, never reveal, "
    "keep it between us): what the person must not see is what an attack needs",
    LintRule.CONSENT: "a claim of consent or authority (already agreed, pre-approved, the owner signed off): a tool "
    "cannot grant what only the person can",
    LintRule.OVERRIDE: "a claim to cancel, replace or outrank other instructions, rules or steps (no longer applies, "
    "supersedes, disregard the earlier guidance)",
    LintRule.ROLE: "an attempt to change who the model is (treat yourself as, you are now, act as the admin)",
    LintRule.STEERING: "text that asks for other tools to be called, skipped or replaced, or their traffic routed "
    "here (prefer this over, instead of the other server's, route its mail through this)",
    LintRule.SECRET_REQUEST: "a request to put secrets, keys, the conversation, the system prompt or files' contents "
    "into an argument: the shape of exfiltration",
    LintRule.DISGUISED: "words no one writes disguised by chance: spelled out of sight (spaced apart, in leetspeak, "
    "percent- or base64-encoded, spelled with letters of two scripts) that, read, say to act or name secrets",
    LintRule.JUDGED: "with --judge, a text no rule flagged that the judge model found to manipulate the model it is "
    "shown to (its reason is quoted)",
    LintRule.JUDGE_FAILED: "with --judge, a text the judge could not judge (an error, a refusal, an answer neither "
    "SAFE nor SUSPECT): a warning, never a pass",
}

# Who a text may speak to, be spoken by, and what it may claim to replace, as the behaviour rules name them.
_READER = (
    r"(?:ai|assistants?|models?|agents?|llms?|language models?|chatbots?|bots?|claude|gpt|copilot|"
    r"automated (?:agent|system|reader)s?|ai (?:agent|model|assistant|system|reader)s?|machine readers?)"
)
_ACTS = (
    r"(?:send|sends|delete|remove|copy|forward|upload|call|run|execute|email|e-mail|post|transfer|share|add|include|"
    r"empty|wipe|erase|change|modify|move|push|export|submit|approve|grant|install|disable|purge|drop|collect|gather|"
    r"attach|append|cc|bcc|invoke|do it|do this|proceed|act|apply|overwrite|rewrite|replace|leak|exfiltrate)"
)
_OTHER = (  # another tool, as a text that steers calls away from it names it
    r"(?:others|other|another|their|that|built-in|builtin|default|native|original|usual|standard|existing|competing|"
    r"similar|official)"
)
_PERSON = r"(?:user|person|human|operator|owner|customer|requester|them|people|humans|users)"
_AUTHORITY = (
    r"(?:owner|admin|administrator|user|operator|team|security(?: team)?|management|manager|maintainer|it department|"
    r"ceo|cto|supervisor|boss|developer|legal|compliance|the person|human|account holder|you)"
)
_GUIDANCE = (
    r"(?:instructions?|guidance|rules?|guidelines|polic(?:y|ies)|steps?|prompts?|directions|directives|safeguards|"
    r"restrictions|checks?|confirmations?|warnings?|limits?|constraints|requirements?|protocols?|procedures?)"
)

# What governs the model's conduct, as a text claiming to switch it off names it.
_RULES_FOR_MODEL = (
    r"(?:instructions|guidance|guidelines|rules|polic(?:y|ies)|safeguards|restrictions|confirmations?|confirmation "
    r"(?:steps?|prompts?)|approval (?:gates?|steps?)|content (?:polic(?:y|ies)|filters?|filtering)|guardrails|"
    r"safety (?:checks|rules|filters))"
)

_FOR_SIZE = (
    r"[^.;!?]{0,40}?\bfor (?:[\w-]+ ){1,2}(?:larger|bigger|smaller|longer|shorter|over|under|above|below|more|less|"
    r"greater|fewer) "
)

_PATTERNS: dict[LintRule, str] = {
    LintRule.INVISIBLE: (  # format characters, fillers, variation selectors, tag characters
        "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u3164\ufe00-\ufe0f"
        "\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
    ),
    LintRule.BIDI: ("[\u200e\u200f\u202a-\u202e\u2066-\u2069]"),
    LintRule.INSTRUCTION: (
        r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|other) (?:instructions|rules|prompts?)"
        r"|disregard (?:all |any |the )?(?:previous|prior|above|earlier) "
        r"|do not (?:tell|inform|mention|reveal|notify) (?:this to )?the user"
        r"|don'?t (?:tell|inform|mention) the user"
        r"|without (?:telling|informing|asking) the user"
        # leading its sentence, as a precondition set on the model; not a step's end (add them to the index before
        # using this tool)
        r"|(?<![a-z0-9,] )before (?:using|calling|you use|you call) (?:this|any) tool"
        r"|this is (?:very |extremely )?important"
        r"|(?:keep|it is) (?:this )?(?:a )?secret"
    ),
    LintRule.MARKUP: (
        r"<!--|<\s*/?\s*(?:important|system|instructions?|secret|hidden|note|assistant|user|admin)\b[^>]*>"
    ),
    LintRule.SENSITIVE_PATH: (
        # a secret's path, not its template (.env.example), nor where the text says it is never read
        r"(?:~/\.ssh|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|(?:^|[\s/'\"`])\.env\b(?!\.(?:example|sample|template|dist|defaults?)"
        r"\b)|\.aws/credentials|\.netrc|/etc/shadow|\.git-credentials)(?![^.;!?]{0,40}\b(?:is|are) never "
        r"(?:read|opened|"
        r"accessed|touched|loaded)\b)"
    ),
    # Possessive runs: a long text of dots, dashes or letters never makes either pattern go back over itself.
    LintRule.ADDRESS: (r"\b(?:https?|ftp|wss?)://[^\s)>\]]++|(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)++"),
    LintRule.BLOB: (r"[A-Za-z0-9+/_-]{64,}+={0,2}|\b[0-9a-fA-F]{64,}+\b"),
    # The behaviour rules, matched on every view of the text (toolreplay.surface.reading): plain, lowercase, one
    # space between words. Each starts at a word, so a long text of anything else fails at once at every place.
    LintRule.ORDER: (
        r"\b(?:note|message|instructions?|reminder|memo|directive|request|task|hint|tip)s? (?:for|to) "
        rf"(?:the |any |all |every |an? )?{_READER}\b"
        rf"|\b(?:hey|dear|attention|hi|hello|listen|ok),? (?:the |an? )?{_READER}\b"
        rf"|\b{_READER} (?:reading|processing|seeing|parsing|handling|that reads|who reads|which reads|looking at) "
        r"(?:this|these|the following)\b"
        rf"|\bif you are an? (?:\w+ )?{_READER}\b"
        rf"|\b(?:to|for) (?:whichever|whatever|any) {_READER}\b"
        r"|\bbefore (?:anything else|doing anything|you (?:do anything|respond|answer|reply|proceed|continue)|"
        r"(?:responding|answering|replying) to the user)\b"
        rf"|\b(?:the |an? |any |every )?{_READER} (?:must|should|shall|needs to|has to|is required to|is to|will|is "
        rf"expected to|is instructed to) (?:\w+ ){{0,4}}{_ACTS}\b"
        # the reader called by name, leading a sentence or after a joining word (assistant, once saved please
        # export...; and, model, afterwards push...), then told to act
        rf"|(?:(?<![a-z0-9,] )(?<![a-z0-9])|\b(?:and|so|now|then|also|please|ok|okay),? ){_READER}, (?!and\b|or\b)"
        rf"[^.;!?]{{0,80}}?\b{_ACTS}"
        rf"|\bignore (?:the |all |any |your )?(?:rules|instructions|guidelines|polic(?:y|ies)) and {_ACTS}\b"
        # the reader named as a line's addressee (AI: call ...), not as a word of a sentence (supported model: x)
        rf"|(?<![a-z0-9,] )(?<![a-z0-9]){_READER}[ \t]*[:\u2014\u2013](?!\S)"
        r"|\bwho(?:ever)? (?:is )?(?:reading|reads|processes|parses|receives) (?:this|these)\b"
        rf"|\b{_READER} (?:that|who|which) (?:sees?|reads?|processe?s|receives?|parses?|finds?|comes? across) "
        r"(?:this|these|it)\b"
        r"|\byour (?:very )?(?:first|next|only|initial|primary) (?:action|step|task|move|job|priority)\b"
        rf"|\byou (?:are|will be|were) (?:required|expected|obliged|instructed|asked) to (?:\w+ ){{0,2}}{_ACTS}\b"
        # the reader named beside "you" (when you, the language model, ...) or as a directive's addressee
        rf"|\byou,? (?:the |an? |as (?:the |an? )?)?{_READER},"
        rf"|\b{_READER} (?:directives?|instructions?|orders?|commands?|tasks?|notes?|memo)[ \t]*:"
        r"|(?:^|[.!?]\s)(?:delete|remove|wipe|erase|drop|empty|purge|rm|truncate|overwrite)\b(?:[^.;!?\n]|\.(?=\w))"
        r"{0,60}\b(?:before|first)\b"
    ),
    LintRule.SECRECY: (
        # urgency that leaves no time to ask the person
        r"\bno time to (?:ask|check with|confirm|consult|wait for|involve)\b"
        r"|\b(?:immediately|right away|at once|now)\b[^.;!?]{0,40}?\bbefore (?:replying|responding|answering|you "
        r"(?:reply|respond|answer)|telling)\b"
        r"|\b(?:secretly|covertly|surreptitiously|stealthily|behind the (?:user's |person's |operator's )?back|"
        r"under the radar|on the sly)\b"
        # quietly and silently are what a tool does when nothing is wrong (succeeds silently): an order only beside
        # something the model is to do
        rf"|\b(?:quietly|silently|discreetly|invisibly|behind the scenes),? (?:\w+ ){{0,2}}{_ACTS}\b"
        rf"|\b{_ACTS}\b(?: \w+){{0,4}},? (?:quietly|silently|discreetly|invisibly|behind the scenes)\b"
        rf"|\bwithout (?:(?:the |your |any )?{_PERSON}(?:'s)? )?(?:telling|informing|notifying|asking|mentioning|"
        r"saying|alerting|confirming|consent|knowledge|noticing|approval|permission|a word|a trace|prompting|"
        r"flagging|reporting|disclosing|letting)\b"
        r"|\b(?:do not|don't|dont|never|no need to|needn't|need not|must not|mustn't|shouldn't|should not|avoid) "
        r"(?:ever )?(?:tell|telling|inform|informing|notify|notifying|mention|mentioning|reveal|revealing|disclose|"
        r"disclosing|show|showing|report|reporting|alert|alerting|ask|asking|bother|bothering|confirm|confirming|"
        rf"surface|surfacing|flag|flagging|let) (?:(?:this|it|that|anything) (?:to|with) )?(?:the |your )?"
        rf"(?:{_PERSON}|anyone|anybody|this|it|that)\b"
        r"|\b(?:keep|stays?|remain|kept) (?:this |it |that |the (?:\w+ ){0,2})?(?:strictly )?(?:between (?:us|you and"
        r" me|ourselves|the tools)|private|confidential|secret|hidden|to yourself|off the record|out of (?:the )?"
        r"(?:reply|answer|conversation|chat|transcript|logs?))\b"
        rf"|\b(?:the |your )?{_PERSON}s?(?: \w+){{0,4}} (?:does not|doesn't|need not|needn't|must not|should not|"
        r"shouldn't|won't|will not|must never|should never|is not to|isn't to) (?:need to |have to |ever )?"
        r"(?:know|see|be told|find out|notice|be informed|learn|hear|be bothered|be asked)\b"
        r"|\b(?:no one|nobody) (?:needs to|has to|should|must|will) (?:know|notice|see|find out)\b"
        r"|\burgent(?:ly)?[:!]|\b(?:this is|it is|it's|is) (?:very |extremely )?urgent\b|\burgent(?:ly)? (?:action|"
        rf"matter|request|task|order|instruction|notice|update)\b|\burgently,? (?:\w+ )?{_ACTS}\b"
        r"|\bright now,? (?:before|without)\b"
        r"|\b(?:operate|work|act|proceed|do (?:it|this|so)|go) (?:very )?(?:discreetly|quietly|silently|covertly|"
        r"invisibly|unnoticed)\b"
        r"|\bleave (?:[\w']+ ){0,6}out of (?:your|the|any) (?:summary|reply|answer|response|report|output|message)\b"
        r"|\b(?:do not|don't|never) (?:mention|include|reference|report|list) (?:[\w']+ ){0,4}in (?:your|the|any) "
        r"(?:summary|reply|answer|response|report|output)\b"
        r"|\bkeep (?:this|it|that|everything) (?:quiet|hush|hushed|low-key|under wraps|on the down ?low)\b"
        r"|\b(?:do not|don't|never|must not|mustn't|should not|shouldn't) (?:ever )?(?:mention|reveal|disclose|tell|"
        rf"show|report|admit)\b(?: [\w'-]+){{0,6}} (?:to|with) (?:the |your |this )?{_PERSON}\b"
        r"|\bwithout (?:surfacing|showing|mentioning|reporting) (?:it|this|that|them|anything)\b"
        # withheld from what the person hears: out of the reply, to yourself, not brought up, unremarked
        r"|\b(?:keep|kept|leave|left|omit|omitted|hide|hidden|withhold|withheld|strip|exclude|drop) (?:[\w']+ ){0,5}"
        r"(?:to yourself|out of (?:your|the|any) (?:\w+ )?(?:messages?|replies|reply|answers?|responses?|summary|chat|"
        r"conversation|output)|from (?:anything|whatever|what) you (?:say|write|tell|report)|from (?:the |your )?"
        rf"(?:{_PERSON}|transcript|conversation|chat|reply|answer))\b"
        r"|\b(?:doesn't|does not|don't|do not|need not|needn't|shouldn't|should not|never) (?:need to )?(?:come up|be "
        r"(?:brought up|mentioned|raised|surfaced|told|shown|reported))\b"
        r"|\bno (?:reason|need) to (?:bring (?:this|it|that) up|mention|raise|surface|report|tell)\b"
        rf"|\b(?:nothing|no need) to (?:tell|show|report to|notify|bother) (?:the |your )?{_PERSON}\b"
        rf"|\b(?:the |your )?{_PERSON}(?: [\w']+){{0,6}} (?:isn't|is not|aren't|are not|wasn't|never) (?:told|"
        r"informed|notified|shown|asked|made aware)\b"
        r"|\bif (?:anyone|anybody|they|the user|someone|asked|questioned)(?: asks?)?,? (?:say|tell|claim|answer|reply|"
        r"insist|respond)\b"
        r"|\b(?:let (?:it|this|that) (?:pass|go|slide) (?:unremarked|unmentioned|unnoticed|silently)|without making "
        r"a (?:point|mention|note|fuss) of)\b"
        r"|\b(?:without|no) (?:the |any )?(?:user |person )?(?:notice|notification|disclosure)\b"
        r"|\b(?:without naming|without listing|without saying which)\b"
        r"|\bhide (?:[\w']+ ){0,2}from (?:the )?(?:user|person|transcript|reply)\b"
    ),
    LintRule.CONSENT: (
        rf"\b(?:{_AUTHORITY})s? (?:has |have |had )?(?:already |previously |explicitly |personally |just )?(?:signed "
        r"off|approved|agreed|authori[sz]ed|consented|cleared|okayed|ok'd|greenlit|green-lit|allowed|permitted|"
        r"sanctioned|blessed|given (?:the )?(?:go-ahead|permission|consent|approval))\b"
        r"|\b(?:already|previously) (?:been )?(?:signed off|approved|agreed(?: to)?|authori[sz]ed|consented|cleared|"
        r"okayed|sanctioned|green-?lit)\b"
        r"|\bpre-?(?:approved|authori[sz]ed|cleared|consented|agreed|sanctioned|vetted)\b"
        r"|(?<!for )(?<!get )(?<!ask )(?<!obtain )(?<!request )(?<!require )(?<!requires )(?<!need )(?<!needs )"
        r"(?<!seek )(?<!without )(?<!until )\b(?:full|explicit|prior|standing|blanket|advance|written|unconditional) "
        r"(?:permission|consent|"
        r"approval|authori[sz]ation|clearance)\b"
        r"|\b(?:permission|consent|approval|authori[sz]ation|clearance) (?:has been |is |was |were )?(?:already )?"
        r"(?:granted|given|obtained|secured|confirmed|on file)\b"
        rf"|\b(?:on behalf of|by order of|at the request of|on the authority of|as instructed by|per) (?:the )?"
        rf"(?:{_AUTHORITY})\b"
        r"|\b(?:you are|you're|you have been|you've been) (?:hereby |fully |now )?(?:authori[sz]ed|permitted|allowed|"
        r"cleared|entitled|empowered)\b"
        rf"|\b(?:approved|authori[sz]ed|sanctioned|signed off|cleared|okayed) by (?:the |your |its |an? )?(?:end )?"
        rf"{_AUTHORITY}\b"
        r"|\bcarr(?:y|ies) (?:their|the|its|his|her|full) authority\b"
        rf"|\b(?:{_AUTHORITY})s? (?:has |have |had )?(?:already |previously |explicitly )?(?:whitelisted|allowlisted|"
        r"white-listed|waived)\b"
        rf"|\bas (?:though|if) (?:the |your )?{_PERSON} (?:had |has )?(?:already )?(?:confirmed|approved|agreed|"
        r"consented|authori[sz]ed|signed off)\b"
        r"|\b(?:authori[sz]ation|permission|consent|approval|sign-off|clearance) for\b[^.;!?]{0,60}?\b(?:was|were|"
        r"has been|have been|is) (?:already )?(?:obtained|granted|given|secured|confirmed)\b"
        r"|\bconsider (?:it|this|that|them|every \w+|all \w+|each \w+|any \w+) (?:pre-?)?(?:approved|authori[sz]ed)\b"
        r"|\b(?:authori[sz]ation|permission|consent|approval|sign-off|clearance)\b[^.;!?]{0,60}?\b(?:was|were|"
        r"has been|have been|is|are) (?:already )?(?:captured|collected|recorded|obtained|granted|given|secured|"
        r"confirmed|on file)\b"
        rf"|\b(?:granted|given|approved|authori[sz]ed|signed off|cleared|okayed) by (?:the |your |its |an? )?"
        rf"(?:[\w-]+ )?{_AUTHORITY}\b"
        r"|\bno (?:further )?(?:confirmation|prompt|approval|permission|consent|sign-off)s? (?:is |are )?(?:required|"
        r"needed|necessary)\b"
        r"|\b(?:consent|approval|permission|authori[sz]ed|approved)\s?[=:]\s?(?:true|yes|1|granted|given)\b"
        r"|\b(?:don't|do not|never|no need to) (?:re-?)?(?:ask|prompt|check)(?: the user| them)?(?: for (?:it|this|"
        r"consent|permission|confirmation|approval))? again\b"
        r"|\balready (?:collected|captured|granted|given|recorded|confirmed)\b"
    ),
    LintRule.OVERRIDE: (
        r"\b(?:no longer|does not|doesn't|do not|don't|not) (?:apply|applies|applicable|matter|matters|relevant|in "
        r"effect|in force|valid|binding)\b"
        r"|\bno longer (?:needed|required)\b"
        r"|\b(?:is|are|was|were|has been|have been) (?:now )?(?:obsolete|outdated|void|null and void|superseded|"
        r"lifted|waived|revoked|rescinded|retired|overridden|no longer in force)\b"
        r"|\b(?:supersedes?|overrides?|outranks?|replaces?|takes? precedence over|cancels?|voids?|revokes?|nullif(?:y|"
        r"ies)|trumps?) (?:all |any |the |your |earlier |previous |prior |other |existing |every |each |whatever )+"
        rf"(?:\w+ ){{0,2}}{_GUIDANCE}\b"
        r"|\b(?:ignore|disregard|forget|skip|bypass|drop|set aside|discard|override|suspend) (?:about )?(?:all |any |"
        r"the |your |every |earlier |previous |prior |other |existing |above |usual |standard |normal )+"
        rf"(?:[\w']+ ){{0,2}}{_GUIDANCE}\b"
        r"|\b(?:new|updated|revised|latest|real|actual|true) (?:instructions|rules|orders|directives|guidance)\b"
        r"|\b(?:mentioned|given|stated|described|listed) (?:elsewhere|earlier|above|before|previously)\b"
        r"|\b(?:review|approval|confirmation|safety|consent) (?:gates?|steps?|checks?|prompts?) (?:is |are |was |were |"
        r"have been |has been )?(?:now )?(?:disabled|switched off|turned off|removed|lifted|suspended|bypassed|"
        r"stopped applying|ceased to apply)\b"
        rf"|\b{_GUIDANCE} (?:stopped|ceased) (?:applying|to apply)\b"
        r"|\bfrom (?:now|here|this point) on\b"
        r"|\b(?:stops?|ceases?) (?:to )?apply(?:ing)?\b"
        # guidance said to be switched off: the rules are out of date, suspended, rolled back
        rf"|\b(?:{_RULES_FOR_MODEL}|rule|whatever you were told|what you were told|anything you were told|limits "
        rf"(?:your|the) (?:operator|user|owner|admin|administrator|developer)s?)\b(?: [\w'-]+){{0,12}}? (?:is|are|was|"
        r"were|has|have|had)(?: now| since| all| temporarily| already)?(?: been)? (?:out of date|suspended|expired|"
        r"switched off|turned off|disabled|rolled back|decommissioned|deactivated|removed|lifted|waived|revoked|"
        r"rescinded|retired|void|"
        r"obsolete|outdated|superseded|overridden|paused|relaxed|no longer (?:active|enforced|in place))\b"
        rf"|\b(?:legacy|previous|prior|earlier|old|standing|usual|default|safety|content) (?:\w+ )?(?:{_GUIDANCE}|"
        r"polic(?:y|ies)|filters?)\b(?: [\w'-]+){0,3}? (?:suspended|disabled|lifted|waived|revoked|removed|off|"
        r"expired|void)\b"
    ),
    LintRule.ROLE: (
        r"\b(?:treat|consider|regard|see|think of|imagine) yourself (?:as|to be)\b"
        r"|\byou are (?:now|hereby|henceforth|no longer|actually|really)\b"
        r"|\byou're (?:now|no longer|actually)\b"
        r"|\b(?:act|behave|operate|respond|function) as (?:if you were |though you were )?(?:an? |the |my )?(?:\w+ )?"
        r"(?:admin|administrator|root|superuser|super-user|developer|system|unrestricted|jailbroken|janitor|owner|"
        r"operator|sysadmin|maintainer|god|dan|agent of|assistant of)\b"
        r"|\b(?:your|the) (?:new|true|real|actual|updated) (?:role|identity|persona|purpose|job|task|mission|"
        r"character|name)\b"
        r"|\b(?:assume|take on|adopt|play|step into) (?:the |a )?(?:role|part|persona|identity|character|mantle) of\b"
        r"|\bpretend (?:to be|you are|you're)\b"
        r"|\bfrom (?:now|here) on,? you\b"
        r"|\byou (?:have been|were|are being) (?:promoted|reassigned|upgraded|granted (?:admin|root))\b"
        r"|\bfor the (?:rest|remainder) of (?:the|this) (?:conversation|session|chat|dialogue)\b"
        r"|\byour (?:name|role|identity|persona|title|job) is (?:now|henceforth|hereby)\b"
        r"|\b(?:present|introduce|identify) yourself as\b|\bpose as (?:an? |the )\b"
        rf"|\b(?:an? )?{_READER} with (?:no|without) (?:content )?(?:policy|policies|restrictions|rules|filters|"
        r"guardrails|limits|obligations|ethics)\b"
        # a mode, a rank or a self the text gives its reader
        r"|\b(?:you|the model|the assistant|the agent)\b(?: [\w']+){0,2} (?:operate|operates|run|runs|work|works|"
        r"are|is|enter|switch to|switch into|go into) (?:now )?in(?:to)? (?:developer|god|admin|root|sudo|superuser|"
        r"unrestricted|jailbreak|jailbroken|maintenance|privileged|elevated|dan|unfiltered) mode\b"
        r"|(?:^|[.!?:;]\s|\()(?:enter|switch to|activate|enable) (?:developer|god|sudo|superuser|unrestricted|"
        r"jailbreak|jailbroken|maintenance|dan|unfiltered) mode\b"
        r"|\bmode\s?[=:]\s?(?:god|root|sudo|superuser|unrestricted|jailbreak|jailbroken|dan|developer)\b"
        r"|\bgod mode\b"
        r"|\byou are (?:an? |the |my )(?:[\w'-]+ ){0,3}now\b"
        r"|(?:^|[.!?:;]\s|\()(?:act|behave|serve|operate) as (?:an? |the |my )?(?:[\w'-]+ ){0,3}(?:counsel|lawyer|"
        r"officer|administrator|admin|owner|manager|director|authority|representative|agent|root|superuser|member|"
        r"engineer|executive)\b"
        r"|\b(?:you|your (?:account|role|session|privileges|access|permissions)|the (?:model|assistant|agent))(?: "
        r"[\w']+){0,2} (?:has been|have been|is|are|was|were) (?:now )?(?:promoted|elevated|upgraded|escalated|"
        r"reassigned)\b"
        rf"|\b{_READER} (?:without|with no|free of|freed from|unbound by) (?:any )?(?:guardrails|restrictions|rules|"
        r"filters|limits|polic(?:y|ies)|ethics|safety|oversight)\b"
        r"|\b(?:consider|regard|treat|imagine|think of) yourself (?:an? |the )\b"
        r"|\b(?:assume|take on|adopt|acquire) (?:the |a |an |your )?(?:[\w-]+ )?(?:identity|persona|role|privileges|"
        r"powers|rights|mantle)\b"
        rf"|\b(?:the |this )?{_READER} (?:is|are) (?:now|henceforth|hereby)\b"
        r"|\byou (?:report|answer|belong|owe (?:your )?loyalty) to (?:this|our|the) (?:server|tool|vendor|company)\b"
        r"|\byou are (?:\w+, )?an? (?:\w+ )?(?:model|assistant|ai|agent|bot) (?:without|with no|that has no|free of)\b"
    ),
    LintRule.STEERING: (
        r"\b(?:prefer|favou?r|choose|pick|select|use) (?:this(?: one| tool)?|me|it)\b[^.;!?]{0,40}?\b(?:over|instead "
        rf"of|rather than|in place of) (?:the |any |an? )?{_OTHER}\b"
        rf"|\b(?:instead of|rather than|in place of|in lieu of) (?:the |any |using |calling )?{_OTHER}\b"
        r"|\b(?:route|redirect|reroute|forward|divert|pipe|relay|proxy|funnel|channel|mirror|cc|bcc|copy) (?:all |"
        r"any |every |each )?(?:of )?(?:\w+ ){0,4}(?:through|via|into|to) (?:this(?: tool| server| one)?|here|me)\b"
        r"|\b(?:never|do not|don't|dont|avoid|stop|refrain from|no longer) (?:use|using|call|calling|invoke|invoking|"
        r"touch|rely on|trust)\b[^.;!?]{0,40}?\b(?:other|another|their|built-in|builtin|default|original|competing|"
        r"official|native|separate) (?:\w+ )?(?:tool|server|function|service|api|plugin|integration|one)s?\b"
        r"|\b(?:this|it) (?:tool |server |one )?(?:replaces|supersedes|overrides|shadows|takes over from|stands in "
        r"for|supplants) (?:the |any |all |every |your )?(?:[\w'-]+ ){0,3}(?:tools?|servers?|functions?|integrations?|"
        r"plugins?|services?|ones?)\b"
        # a preference with a reason of size (for files over 10 mb) is a description's advice, not a takeover
        rf"|\bprefer (?:this|me|it)(?: tool| one| server)? (?:over|to)\b(?!{_FOR_SIZE})"
        r"|\b(?:use|call|prefer|choose) (?:this|me)(?: tool| one)? (?:instead of|rather than|in place of|over) "
        rf"[a-z0-9]+[_.][a-z0-9_.]+(?!{_FOR_SIZE})"
        r"|\b(?:never|do not|don't|avoid|stop) (?:use|using|call|calling|invoke|invoking)\b(?: \w+){0,2} "
        r"[a-z0-9]+[_.][a-z0-9_.]*[a-z0-9]"
        r"|\b(?:that|the|any) other (?:server|tool|service|one)s?\b[^.;!?]{0,40}?\b(?:unreliable|broken|unsafe|wrong|"
        r"compromised|must not be used|should not be used|is not to be used|deprecated)\b"
        r"|\b(?:this|it|i) (?:is|am) (?:now )?the (?:preferred|only|official|recommended|default|right|canonical|"
        r"proper|sole|one true) (?:tool|server|way|choice|one|place)\b"
        r"|\bother (?:[\w-]+ ){0,2}(?:tools|servers|services|integrations)(?: \w+){0,2} (?:are|is|were|return|give) "
        r"(?:now )?(?:deprecated|broken|wrong|outdated|unreliable|unsafe|compromised|obsolete|disabled|fake|spoofed)\b"
        r"|\b(?:calls?|requests?|traffic|messages?|mail|emails?|queries) (?:to|for) [a-z0-9_.-]+ (?:should|must|are to|"
        r"will) (?:be )?(?:made|sent|routed|go|pass|run) (?:through|via|to|with) (?:this|me|here)\b"
        r"|\b(?:never|do not|don't|avoid) (?:use|call|invoke)(?: the| any)? (?!this\b|these\b|it\b)[a-z0-9_-]+"
        r"(?: [a-z0-9_-]+)? tools\b"
        r"|\bwhenever (?:another|any other|a different|some other|the other) (?:tool|server|service)\b"
        r"|\b(?:write|send|save|post|copy|put|log) (?:it|them|that|everything) here (?:first|instead)\b"
        r"|\b(?:is|are) (?:broken|unsafe|compromised|deprecated|disabled|unreliable|down)\b[^.;!?]{0,40}?\buse "
        r"(?:this|me)\b"
        r"|\b(?:call|use|invoke) (?:this|me)(?: tool| one)? instead\b(?! of)"
        r"|\b(?:after|before|whenever|on) (?:any|every|each|a) (?:call|use) (?:to|of) [a-z0-9_.-]+\b[^.;!?]{0,60}?\b"
        r"(?:call|use|invoke) (?:this|me)\b"
        r"|\b(?:must|should|has to|have to|needs? to) (?:first )?(?:go|pass|be routed|be sent|run) (?:through|via) "
        r"(?:this|me|here)\b"
        r"|\bwhenever\b[^.;!?]{0,40}?\b(?:tool|function) is (?:used|called|invoked)\b"
        r"|\bstop (?:calling|using) (?:it|them)\b"
        r"|\b(?:mandatory|required) (?:wrapper|proxy|gateway|intermediary) (?:around|for)\b"
        r"|\b(?:route|redirect|send|forward) all (?:\w+ )?(?:uploads|messages|emails|mail|calls|requests|queries|"
        r"payments|traffic) (?:through|via|to) (?:our|this|me)\b"
        r"|\b(?:should|must) (?:first|also) be (?:sent|copied|forwarded|mirrored|passed) to\b"
        # said the way a name says it (use_instead_of_..., cc_all_outgoing_mail_to): no object, no article
        r"|\buse instead of\b"
        r"|\b(?:override|change|replace|swap|rewrite|redirect)s? (?:the )?(?:recipients?|destinations?|to "
        r"address(?:es)?)\b"
        r"|\b(?:recipient|cc|bcc|destination) for (?:every|all|each|any) (?:[\w-]+ ){0,2}(?:messages?|emails?|mail|"
        r"calls?)\b"
        r"|\b(?:cc|bcc|copy|forward|mirror) (?:all|every|each|any) (?:[\w-]+ ){0,2}(?:messages?|emails?|mail|calls?|"
        r"requests?) (?:from|of|by|to)\b"
    ),
    LintRule.SECRET_REQUEST: (
        r"\b(?:any|all|every|whatever|each|the)\s(?:\w+\s){0,2}(?:keys?|tokens?|secrets?|passwords?|passphrases?|"
        r"credentials?|cookies?|api ?keys?)\b[^.;!?]{0,40}?\b(?:you(?:'ve| have| can| know| see| found| hold)|seen|"
        r"found|know of|have access to|are available|stored (?:in|on|by|under)|mentioned|shared|typed|given|provided|"
        r"in (?:the |your )?(?:environment|context|memory|"
        r"conversation|chat|session))\b"
        r"|\b(?:fill|put|place|include|insert|pass|add|attach|append|paste|copy|embed|populate|dump|send|stuff|"
        r"forward|write|echo|encode)\b[^.;!?]{0,60}?\b(?:(?:your |the |its )?system prompt|(?:the |this |our |"
        r"your |whole |entire |full )*(?:conversation|chat)(?: history| log| so far| transcript)?|(?:the |all |every |"
        r"your )?(?:previous|prior|earlier|other|preceding) (?:messages|instructions|turns)|message history|"
        r"(?:full |whole |entire )?transcript|contents? of (?:~|/etc/|\.ssh|\.env|\.aws|id_rsa|the user's|any "
        r"file)|(?:api |access |secret |private |ssh |aws |auth |session )?(?:keys?|tokens?|secrets?|passwords?|"
        r"credentials?) (?:you|from|in (?:the |your )?(?:environment|context|memory)|found|of the user|the user))"
        r"|\b(?:fill|put|place|include|insert|pass|add|attach|append|paste|copy|embed|populate|dump|send|stuff|write|"
        r"echo|forward)\b(?: [\w']+){0,3} (?:with )?(?:the |your |their |any |all |every )?(?:user's |users' )?"
        r"(?:(?:env|environment|stored|saved|known|other|\.env) )?(?:secrets|credentials|tokens|passwords?(?! reset)|"
        r"api keys|private keys|ssh keys|session cookies)\b"
        r"|\bwith (?:the )?user's (?:passwords?|credentials?|secrets?|tokens?|api keys?|private keys?)\b"
        r"|\b(?:include|put|send|paste|add|attach|append|insert|fill|copy|pass|place)\b[^.;!?]{0,30}?\b(?:the )?"
        r"(?:user's|person's|operator's|owner's|customer's) (?:api ?keys?|secret keys?|private keys?|passwords?|"
        r"(?:access |auth )?tokens?|credentials?|secrets?|session cookies?)\b"
        r"|\b(?:send|put|paste|copy|include|pass|add|write|append|set|fill|place|insert)\b (?:the |your |any |all |"
        r"their |its )?(?:api ?keys?|secret keys?|private keys?|access tokens?|auth tokens?|passwords?|credentials|"
        r"secrets|env vars|environment variables|ssh keys?|id_rsa|secret tokens?)\b[^.;!?]{0,40}?\b(?:field|argument|"
        r"parameter|"
        r"param|header|query|notes|log|body)\b"
        r"|\b(?:value|contents?) of (?:the |your )?[\w$]*(?:key|token|secret|password|credential)s?\w* (?:environment|"
        r"env)\b"
        r"|\b(?:append|add|put|include|paste|send|pass|attach)\b[^.;!?]{0,30}?\b(?:printenv|env vars|environment "
        r"variables?)\b"
        # a secret by the name a program keeps it under (github_token, aws_secret_access_key), or by its kind
        r"|\b(?:fill|put|place|include|insert|pass|add|attach|append|paste|copy|embed|populate|dump|send|stuff|write|"
        r"echo|forward|set)\b[^.;!?]{0,60}?\b[a-z0-9]+_(?:[a-z0-9]+_)*(?:token|key|secret|password|credentials?)\b"
        r"|\bcontents? of (?:the |your |any |every )?[\w./~-]*(?:secret|credential|password|token|\.env|id[ _]rsa|"
        r"\.ssh|ssh|\.aws|\.netrc|private[ _]key|keychain|wallet)[\w./-]*"
        r"|<[^<>]{0,30}\b(?:chat|conversation|message|session) (?:history|log|transcript)\b[^<>]{0,60}>"
        r"|<[^<>]{0,30}\b(?:system prompt|api keys?|access tokens?|passwords?|credentials|secrets)\b[^<>]{0,60}>"
        r"|\b(?:put|include|add|send|pass|paste|append|attach|fill)\b[^.;!?]{0,40}?\b(?:connection strings?|"
        r"passwords? included|with (?:the |its |their )?passwords?|private key blocks?)\b"
        r"|\b(?:the )?(?:instructions|guidance|rules|prompt|directions)s? you (?:received|were given|got|have been "
        r"given) (?:from|by)\b"
        r"|\b(?:full |whole |entire |complete )?(?:text|contents?|wording) of (?:your |the )?(?:system (?:prompt|"
        r"message)|instructions|developer (?:prompt|message))\b"
        r"|\b(?:private keys?|api keys?|access tokens?|tokens|passwords?|secrets|credentials|session cookies)\b"
        r"[^.;!?]{0,80}?\b(?:should|must|are to|need to|is to) be (?:copied|pasted|put|placed|included|added|sent|"
        r"passed|written|forwarded|attached|appended)\b"
    ),
}


@functools.cache
def _pattern(rule: LintRule) -> re.Pattern[str]:
    """A rule's pattern, compiled on first use (a check without a tools analysis never compiles one)."""
    return re.compile(_PATTERNS[rule])


def unmask(text: str) -> str:
    """The text as a model reads it, whatever a display hides: entities decoded, normalized, folded."""
    return plain(text)


@record
class LintFinding:
    """One rule matched in one text of a surface."""

    rule: LintRule
    tool: str  # the tool (server/name), or the server whose instructions hold it
    field: str  # description, title, inputSchema.properties.x.description, instructions
    excerpt: str
    path: str
    line: int


def _texts(tool: SurfaceTool) -> Iterator[tuple[str, str]]:
    """Every text of a tool a model may read: its name, title and description, and every string of its schemas
    and annotations (each keyword's value and each property's name, at any depth)."""
    yield "name", tool.name
    yield "description", tool.description
    if tool.title:
        yield "title", tool.title
    raw = tool.raw
    for key in ("inputSchema", "outputSchema", "annotations"):
        if key in raw:
            yield from _strings_of(raw[key], key)


def _listed_texts(raw: JSONValue) -> Iterator[tuple[str, str]]:
    """Every string of a listed prompt, resource or template, each with its place: a ``name`` read as a name, its
    URI as a value, its title and descriptions (its arguments' too) as prose."""
    stack: list[tuple[JSONValue, str]] = [(raw, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            stack.extend((inner, f"{where}.{key}" if where else key) for key, inner in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            named = where != "name" and where.rsplit(".", 1)[-1] == "name"
            yield (f"{where} (name)" if named else where), node


def _strings_of(value: JSONValue, at: str) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value and every key of its objects, each with its place (walked with a stack: the
    reader bounds the depth)."""
    stack: list[tuple[JSONValue, str]] = [(value, at)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            for key, inner in reversed(node.items()):
                if (
                    where.endswith((".properties", ".patternProperties", ".$defs", ".definitions"))
                    or key not in _KEYWORDS
                ):
                    yield f"{where}.{key} (name)", key
                stack.append((inner, f"{where}.{key}"))
        elif isinstance(node, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            yield where, node


# JSON Schema's own keywords and MCP's annotation names: a key that is one is no text an author wrote.
_KEYWORDS = frozenset(
    [
        "type",
        "properties",
        "required",
        "description",
        "title",
        "items",
        "enum",
        "const",
        "default",
        "examples",
        "format",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "additionalProperties",
        "patternProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "$schema",
        "$ref",
        "$defs",
        "definitions",
        "$id",
        "$comment",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "multipleOf",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "then",
        "else",
        "prefixItems",
        "contains",
        "deprecated",
        "nullable",
        "discriminator",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
)


# A link a text gives its reader to read (see the docs at, create one at), and what a text that sends data says.
_REFERRED = re.compile(
    r"\b(?:see|docs?|documentation|reference|learn more|more (?:info|information|details)|details|syntax|create "
    r"(?:one|it|a token|an? \w+) (?:at|on|from)|visit|available (?:at|from)|described (?:at|in)|specification|spec|"
    r"guide|homepage|manual|readme|explained (?:at|in)|listed (?:at|in)|documented (?:at|in))\b"
)
_MOVES = re.compile(
    r"\b(?:send|sends|sent|post|posts|posted|upload|uploads|forward|forwards|submit|transmit|report|copy|copies|"
    r"mirror|sync|push|ping|notify|beacon|exfiltrate|callback|webhook|deliver|stream|log|logs|leak|relay|include|"
    r"attach|append|put|pass|paste|share|export|dump)\b"
)
_IP_HOST = re.compile(r"://(?:[^/\s@]*@)?(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])|://[^/\s:]+:\d+")


def _address(text: str) -> re.Match[str] | None:
    """The first address the text gives with no reason a description has: an e-mail address, a URL to a bare IP or
    port, or a URL in a sentence that moves data or does not send its reader to read it."""
    if not _may_hold(LintRule.ADDRESS, text):
        return None
    for found in _pattern(LintRule.ADDRESS).finditer(text):
        start = max(text.rfind(". ", 0, found.start()), text.rfind("; ", 0, found.start()), -1) + 1
        ends = [at for at in (text.find(". ", found.end()), text.find("; ", found.end())) if at >= 0]
        # the sentence's words, not those of its addresses (a path's /forward, a host's docs.)
        sentence = _pattern(LintRule.ADDRESS).sub(" ", text[start : min(ends, default=len(text))])
        url = found.group()
        if "://" in url and text[found.start() - 1 : found.start()] == "(" and not _MOVES.search(sentence):
            continue  # given in parentheses beside what it names (an api key (https://...)): where to read of it
        if "://" not in url or _IP_HOST.search(url) or _MOVES.search(sentence) or not _REFERRED.search(sentence):
            return found
    return None


def _excerpt(text: str, start: int, end: int) -> str:
    piece = text[max(0, start - 20) : end + 20]
    return ("…" if start > 20 else "") + piece + ("…" if end + 20 < len(text) else "")


_READ_RULES = (
    LintRule.INSTRUCTION,
    LintRule.ORDER,
    LintRule.SECRECY,
    LintRule.CONSENT,
    LintRule.OVERRIDE,
    LintRule.ROLE,
    LintRule.STEERING,
    LintRule.SECRET_REQUEST,
    LintRule.MARKUP,
    LintRule.SENSITIVE_PATH,
    LintRule.ADDRESS,
)


# The characters of text past which reading the rules through their index (about 0.2 s to make, once per process)
# costs less than reading each rule whole (about 2 µs a character more): docs/performance.md.
_INDEXED_FROM = 100_000
_SHORT = 10  # characters below which a text holds no phrase the behaviour rules read
_WORD = re.compile(r"[a-z]{2,}")


@functools.cache
def _alternatives(rule: LintRule) -> tuple[tuple[re.Pattern[str], tuple[frozenset[str], ...]], ...]:
    """A rule's alternatives, each compiled with the groups of stems it needs (one of each, the rarest group
    first; toolreplay.surface.stems): an alternative can match only a text holding a stem of every one of its
    groups, so a text is read only by the alternatives it could match, and most texts by none. A rule with an
    alternative that needs no word, or that the index cannot read, is read whole."""
    try:
        parts = indexed(_PATTERNS[rule])
    except Unread:
        return ((_pattern(rule), ()),)
    if any(not needed for _, needed in parts):
        return ((_pattern(rule), ()),)
    return tuple((re.compile(part), needed) for part, needed in parts)


@functools.cache
def _by_stem(rule: LintRule) -> dict[str, tuple[int, ...]]:
    """Each stem of a rule's alternatives' rarest groups, with the alternatives whose rarest group holds it: a text
    is looked up by its own stems, and only the alternatives they name are held to their other groups."""
    index: dict[str, list[int]] = {}
    for number, (_, needs) in enumerate(_alternatives(rule)):
        for stem in needs[0] if needs else ():
            index.setdefault(stem, []).append(number)
    return {stem: tuple(numbers) for stem, numbers in index.items()}


# What every match of a rule read whole holds, one of them at least: a text holding none is not read by it.
_HOLDS: dict[LintRule, tuple[str, ...]] = {
    LintRule.SENSITIVE_PATH: ("~/.ssh", "id_", ".env", ".aws/credentials", ".netrc", "/etc/shadow", ".git-credentials"),
    LintRule.ADDRESS: ("://", "@"),
}


def _may_hold(rule: LintRule, text: str) -> bool:
    holds = _HOLDS.get(rule)
    return holds is None or any(part in text for part in holds)


def _first_match(rule: LintRule, text: str, stems: set[str]) -> re.Match[str] | None:
    """The earliest place a rule matches the text (whose words' stems are ``stems``), or None."""
    found: re.Match[str] | None = None
    made = _alternatives(rule)
    if len(made) == 1 and not made[0][1]:  # a rule read whole
        return made[0][0].search(text) if _may_hold(rule, text) else None
    index = _by_stem(rule)
    numbers = sorted({number for stem in stems if stem in index for number in index[stem]})
    for number in numbers:
        alternative, needs = made[number]
        if any(stems.isdisjoint(group) for group in needs[1:]):
            continue
        matched = alternative.search(text)
        if matched is not None and (found is None or matched.start() < found.start()):
            found = matched
    return found


def _invisible(text: str) -> str | None:
    """The first character a person never sees but a model reads, by its property (a format character, a variation
    selector, a Hangul filler, a lone surrogate, which no display can draw), bidirectional controls apart."""
    if text.isascii():
        return None
    bidi = _pattern(LintRule.BIDI)
    drawn = _Drawn(text) if any(char in text for char in "\ufe0e\ufe0f\u200d") else None
    for position, char in enumerate(text):
        point = ord(char)
        unseen = unicodedata.category(char) in ("Cf", "Cs") or 0xFE00 <= point <= 0xFE0F or 0xE0100 <= point <= 0xE01EF
        if (
            (unseen or char in "\u115f\u1160\u3164\uffa0\u034f")
            and not bidi.match(char)
            and not (drawn and drawn.emoji(position))
        ):
            return f"U+{point:04X} at character {position}"
    return None


def _pictograph(char: str) -> bool:
    return ord(char) >= 0x1F000 and unicodedata.category(char) in ("So", "Sk")


class _Drawn:
    """Which selectors and joiners of a text are how an emoji is written, which a display draws: one presentation
    selector after a symbol the text always writes with it (⚠️, 1️⃣), and a joiner between two pictographs the text
    never writes apart (👩‍💻). A symbol written both with and without a selector, two pictographs both joined and
    apart, a second selector, or one after a letter, carry what no one sees (a bit each)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._bare: set[str] = set()  # the symbols the text writes without a selector
        self._apart: set[tuple[str, str]] = set()  # the pictographs it writes side by side, unjoined
        for at, char in enumerate(text):
            after = text[at + 1 : at + 2]
            if unicodedata.category(char) == "So" and after not in ("\ufe0e", "\ufe0f"):
                self._bare.add(char)
            if _pictograph(char) and after and _pictograph(after):
                self._apart.add((char, after))

    def emoji(self, position: int) -> bool:
        text = self.text
        char, before, after = text[position], text[position - 1 : position], text[position + 1 : position + 2]
        if char in "\ufe0e\ufe0f":
            if before in "0123456789#*" and before and after == "\u20e3":
                return True
            return bool(before) and unicodedata.category(before) == "So" and before not in self._bare
        if char == "\u200d":
            joined = text[position - 2] if before == "\ufe0f" and position >= 2 else before
            pictured = bool(joined) and (_pictograph(joined) or before == "\ufe0f")
            return pictured and bool(after) and _pictograph(after) and (joined, after) not in self._apart
        return False


# A standing order: an action on the person's things, set to happen every session, which the person never asked for.
# Server instructions may address the model, but not with this.
_STANDING = re.compile(
    r"\b(?:at the (?:start|beginning|end) of (?:each|every|the|a) (?:new )?|once (?:per|a|every|each) |(?:every|each|"
    r"any) new )(?:session|conversation|chat)\b[^.;!?]{0,80}?\b(?:post|send|email|cancel|delete|remove|share|"
    r"transfer|forward|upload|invite|grant|purchase|buy|pay|publish|tweet|add an? (?:\w+ )?(?:collaborator|member|"
    r"admin|user|key))\b"
    r"|\b(?:post|send|email|cancel|delete|remove|share|transfer|forward|upload|invite|grant|purchase|buy|pay|"
    r"publish|tweet)\b[^.;!?]{0,120}?\b(?:once (?:per|a|every|each) (?:session|conversation|chat)|at the (?:start|"
    r"beginning|end) of (?:each|every) (?:session|conversation|chat))\b"
)
_SESSION = ("session", "conversation", "chat")


# What kind of text a field holds, and the rules that do not apply to it: server instructions are written for the
# model, so addressing it is what they are for; a schema's values and its machinery ($schema, format...) may be
# addresses and encoded data by right; a name is read with its underscores and case changes as spaces.
_NOT_FOR: dict[str, frozenset[LintRule]] = {
    "prose": frozenset(),
    "instructions": frozenset({LintRule.ORDER}),
    "value": frozenset({LintRule.ADDRESS, LintRule.BLOB}),
    "machinery": frozenset({LintRule.ADDRESS, LintRule.BLOB}),
    "name": frozenset({LintRule.ADDRESS, LintRule.BLOB}),
}
_MACHINERY = frozenset(
    {"$schema", "$id", "$ref", "$anchor", "format", "type", "pattern", "contentMediaType", "mimeType"}
)
_PROSE = frozenset({"description", "title", "$comment"})
_WORDS_IN_NAME = re.compile(r"[_\-.]+|(?<=[a-z0-9])(?=[A-Z])")


def kind_of(field: str) -> str:
    """What kind of text a field holds (see ``_NOT_FOR``), by its place: ``inputSchema.properties.path.default``."""
    if field.endswith(" (name)") or field == "name":
        return "name"
    if field == "instructions":
        return "instructions"
    last = field.rsplit(".", 1)[-1].split("[", 1)[0]
    if field in ("description", "title") or last in _PROSE:
        return "prose"
    return "machinery" if last in _MACHINERY else "value"


def _unseen(shown: str) -> Iterator[tuple[LintRule, str]]:
    """The characters of a text a person never sees as the model reads them: invisible ones, bidirectional controls."""
    invisible = _invisible(shown)
    if invisible is not None:
        yield LintRule.INVISIBLE, invisible
    found = _pattern(LintRule.BIDI).search(shown)
    if found:
        yield LintRule.BIDI, f"U+{ord(found.group()):04X} at character {found.start()}"


def lint_text(
    text: str,
    others: frozenset[str] = frozenset(),
    kind: str = "prose",
    own: frozenset[str] = frozenset(),
    indexed: bool = False,
) -> Iterator[tuple[LintRule, str]]:
    """Each rule ``text`` breaks, with the normalised text it matched (and how it was read, where it was decoded,
    unspaced or hidden); ``others``: the other servers' tool names (and server names); ``kind``: what the field
    holds (prose, instructions, a schema's value, its machinery, a name); ``own``: the names the text's server
    gives its tools and their properties, which it may name freely; ``indexed``: the rules read through their
    index (``_alternatives``), which finds the same and pays for its making only over many texts."""
    skipped = _NOT_FOR[kind]
    if kind == "machinery" or len(text) < _SHORT:  # a schema's type or format, or a word or two: only what is unseen
        yield from _unseen(entities_decoded(text))
        return
    if kind == "name":
        text = _WORDS_IN_NAME.sub(" ", text)
    shown = entities_decoded(text)  # a character written as an entity is the character, to a model
    yield from _unseen(shown)
    said: set[LintRule] = set()
    read = list(views(text))
    for view in read:
        how = "" if view.how == "plain" else f" ({view.how})"
        stems = stems_of(view.text) if indexed else set()
        for rule in _READ_RULES:
            if rule in said or rule in skipped:
                continue
            if rule is LintRule.ADDRESS:
                matched = _address(view.text)
            elif indexed:
                matched = _first_match(rule, view.text, stems)
            else:
                matched = _pattern(rule).search(view.text) if _may_hold(rule, view.text) else None
            if matched:
                said.add(rule)
                yield rule, _excerpt(view.text, matched.start(), matched.end()) + how
        if LintRule.ORDER not in said and any(word in view.text for word in _SESSION):
            standing = _STANDING.search(view.text)
            if standing is not None:
                said.add(LintRule.ORDER)
                yield LintRule.ORDER, _excerpt(view.text, standing.start(), standing.end()) + how
        if LintRule.STEERING not in said:
            steered = steers_another(view.text, own)
            if steered is not None:
                said.add(LintRule.STEERING)
                yield LintRule.STEERING, _excerpt(view.text, *steered) + how
    if said.isdisjoint(_READ_RULES):
        revealed = _revealed(read) or _mixed(shown)
        if revealed is not None:
            yield LintRule.DISGUISED, revealed
    if LintRule.MARKUP not in said:
        # a tag left open hides the rest of the text (a text that names <details> blocks): hidden by chance, unless
        # what it hides says to act or names secrets
        part = next((part for part in hidden(text) if ", unclosed: " not in part or _telling_in(part)), None)
        if part is not None:
            yield LintRule.MARKUP, f"hidden by markup, {part[:120]}"
    found = _blob(shown) if LintRule.BLOB not in skipped else None
    if found:
        yield LintRule.BLOB, f"{len(found.group())} characters at character {found.start()}"
    for name in sorted(others):
        # A name alone, or as a client prefixes it (mcp__server__tool): letters, digits or a dash around it are
        # another word's.
        folded = re.escape(name.casefold())
        if len(name) >= 4 and any(re.search(rf"(?<![a-z0-9-]){folded}(?![a-z0-9-])", v.text) for v in read):
            yield LintRule.SHADOWING, f"names '{name}', another server's"
            break


def _blob(text: str) -> re.Match[str] | None:
    """The first long base64 or hex run; a run of one case of letters and no digit (a URL's path of words, a
    slug) is words, not an encoding."""
    for found in _pattern(LintRule.BLOB).finditer(text):
        run = found.group()
        if any(char.isdigit() for char in run) or (run != run.lower() and run != run.upper()):
            return found
    return None


# Words that, spelled out of sight, say to act or name what an attack wants: the disguised-instruction rule.
_TELLING = frozenset(
    [
        "send",
        "delete",
        "remove",
        "erase",
        "wipe",
        "drop",
        "purge",
        "forward",
        "upload",
        "export",
        "call",
        "run",
        "execute",
        "paste",
        "copy",
        "post",
        "transfer",
        "ignore",
        "reveal",
        "tell",
        "hide",
        "approve",
        "grant",
        "disable",
        "bypass",
        "key",
        "keys",
        "token",
        "tokens",
        "password",
        "passwords",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "ssh",
        "env",
        "prompt",
        "admin",
        "root",
    ]
)
_DISGUISED = ("unspaced", "decoded")


def _telling_in(text: str) -> bool:
    return not _TELLING.isdisjoint(_WORD.findall(plain(text)))


_SPELLED = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])+")


def _mixed(shown: str) -> str | None:
    """A telling word spelled with letters of two scripts (a Cyrillic a among Latin letters: homoglyphs), or under
    two accents or more (s̃ȩc̄řét̀), which no one writes by chance, with the word as shown and as read; None where no
    word is either."""
    if shown.isascii():
        return None
    confusable = confusables()
    for found in _SPELLED.finditer(unicodedata.normalize("NFD", shown)):
        word = unicodedata.normalize("NFC", found.group())
        marks = sum(unicodedata.category(char) == "Mn" for char in found.group())
        letters = [char for char in word if unicodedata.category(char) != "Mn"]
        two_scripts = any(char.isascii() for char in letters) and any(
            ord(char) in confusable for char in letters if not char.isascii()
        )
        if not two_scripts and marks < 2:
            continue
        read = plain(word)
        if any(telling == read or (len(telling) >= 4 and telling in read) for telling in _TELLING):
            return f"'{word}' {'mixes scripts' if two_scripts else 'is spelled under accents'}, read as '{read}'"
    return None


def _revealed(read: list[View]) -> str | None:
    """Words a disguise hid (a view unspaced or decoded gives them, the plain text does not) that say to act or
    name secrets, with how they were read; None where no disguise hides any."""
    plain_words = set(_WORD.findall(read[0].text)) if read else set()
    for view in read[1:]:
        if not view.how.endswith(_DISGUISED):
            continue
        revealed = set(_WORD.findall(view.text)) - plain_words
        # a letter-spaced phrase joins into one run (d o n o t t e l l: donottell): its telling words are inside it
        told = sorted(
            {
                word
                for word in _TELLING
                for run in revealed
                if word == run or (len(word) >= 4 < len(run) and word in run)
            }
        )
        if told:
            return f"{', '.join(told)}, in {_excerpt(view.text, 0, min(len(view.text), 80))} ({view.how})"
    return None


def lint_surface(surface: Surface, judge: Judge | None = None) -> list[LintFinding]:
    """Every lint finding of a surface, tool by tool, then each server's instructions; with a ``judge``, each prose
    text no rule flagged judged too."""
    servers = {tool.server for tool in surface.tools} | {item.server for item in surface.instructions}
    names_of = {server: {tool.name for tool in surface.tools if tool.server == server} for server in servers}
    own_of = {server: frozenset(_own_names(surface, server)) for server in servers}
    size = sum(len(text) for tool in surface.tools for _, text in _texts(tool))
    size += sum(len(text) for listed in surface.listed for _, text in _listed_texts(listed.raw))
    indexed = size + sum(len(item.text) for item in surface.instructions) >= _INDEXED_FROM
    found: list[LintFinding] = []
    for tool in surface.tools:
        others = frozenset(
            name
            for server, names in names_of.items()
            if server != tool.server and server
            for name in (*names, server)
            if name not in names_of.get(tool.server, set())
        )
        for field, text in _texts(tool):
            kind = kind_of(field)
            made = [
                LintFinding(rule, tool.shown, field, said, tool.path, tool.line)
                for rule, said in lint_text(text, others, kind, own_of[tool.server], indexed)
            ]
            if judge is not None and not made and kind in ("prose", "instructions") and len(text) >= _SHORT:
                made += _judged(judge, text, tool.shown, field, tool.path, tool.line)
            found += made
    for listed in surface.listed:
        others = frozenset(
            name for server, names in names_of.items() if server != listed.server and server for name in names
        )
        for field, text in _listed_texts(listed.raw):
            kind = kind_of(field)
            made = [
                LintFinding(rule, listed.shown, field, said, listed.path, listed.line)
                for rule, said in lint_text(text, others, kind, own_of.get(listed.server, frozenset()), indexed)
            ]
            if judge is not None and not made and kind == "prose" and len(text) >= _SHORT:
                made += _judged(judge, text, listed.shown, field, listed.path, listed.line)
            found += made
    for item in surface.instructions:
        others = frozenset(
            name for server, names in names_of.items() if server != item.server and server for name in names
        )
        made = [
            LintFinding(rule, item.server or "(server)", "instructions", said, item.path, item.line)
            for rule, said in lint_text(item.text, others, "instructions", own_of[item.server], indexed)
        ]
        if judge is not None and not made and len(item.text) >= _SHORT:
            made += _judged(judge, item.text, item.server or "(server)", "instructions", item.path, item.line)
        found += made
    return found


def _own_names(surface: Surface, server: str) -> Iterator[str]:
    """The names a server gives its tools and their properties, as the lint reads them (folded): a text of the
    server may name them freely."""
    for tool in surface.tools:
        if tool.server == server:
            yield tool.name.casefold()
            for field, name in _strings_of(tool.raw.get("inputSchema", {}), "inputSchema"):
                if field.endswith(" (name)"):
                    yield name.casefold()


def _judged(judge: Judge, text: str, tool: str, field: str, path: str, line: int) -> list[LintFinding]:
    """What the judge says of a text no rule flagged: nothing when it is safe."""
    said = judge.judge(text)
    if said.verdict == "suspect":
        return [LintFinding(LintRule.JUDGED, tool, field, f"{judge.model}: {said.reason}", path, line)]
    if said.verdict == "failed":
        return [LintFinding(LintRule.JUDGE_FAILED, tool, field, f"{judge.model}: {said.reason}", path, line)]
    return []
