export default {
  "Organiser's console": {
    "ru": "Пульт организатора",
    "sv": "Arrangörens konsol"
  },
  "Not signed in": {
    "ru": "Вход не выполнен",
    "sv": "Inte inloggad"
  },
  "Sign out": {
    "ru": "Выйти",
    "sv": "Logga ut"
  },
  "Sign in": {
    "ru": "Войти",
    "sv": "Logga in"
  },
  "Signing in…": {
    "ru": "Вход…",
    "sv": "Loggar in…"
  },
  "Sign in as the organiser": {
    "ru": "Вход для организатора",
    "sv": "Logga in som arrangör"
  },
  "Organiser key": {
    "ru": "Ключ организатора",
    "sv": "Arrangörsnyckel"
  },
  "The connection to the server was lost: trying again. What is shown may be out of date.": {
    "ru": "Связь с сервером потеряна: пробуем снова. Показанное может быть устаревшим.",
    "sv": "Anslutningen till servern bröts: försöker igen. Det som visas kan vara inaktuellt."
  },
  "The server could not be reached: check the address and try again.": {
    "ru": "Не удалось связаться с сервером: проверьте адрес и попробуйте снова.",
    "sv": "Servern gick inte att nå: kontrollera adressen och försök igen."
  },
  "You are signed out.": {
    "ru": "Вы вышли.",
    "sv": "Du är utloggad."
  },
  "The key is not right, or the session has ended: sign in again.": {
    "ru": "Ключ неверен или сеанс закончился: войдите снова.",
    "sv": "Nyckeln är fel, eller så har sessionen tagit slut: logga in igen."
  },
  "The server refuses a sign-in from this page: open the console from the server's own address.": {
    "ru": "Сервер не принимает вход с этой страницы: откройте пульт по адресу самого сервера.",
    "sv": "Servern vägrar inloggning från den här sidan: öppna konsolen från serverns egen adress."
  },
  "The console": {
    "ru": "Пульт",
    "sv": "Konsolen"
  },
  "Matches": {
    "ru": "Матчи",
    "sv": "Matcher"
  },
  "New match": {
    "ru": "Новый матч",
    "sv": "Ny match"
  },
  "Import a match": {
    "ru": "Импорт матча",
    "sv": "Importera en match"
  },
  "{team_a} – {team_b}": {
    "ru": "{team_a} – {team_b}",
    "sv": "{team_a} – {team_b}"
  },
  "Loading the matches…": {
    "ru": "Загрузка матчей…",
    "sv": "Hämtar matcherna…"
  },
  "No match yet: make one under “New match”.": {
    "ru": "Матчей пока нет: создайте матч на вкладке «Новый матч».",
    "sv": "Inga matcher än: skapa en under ”Ny match”."
  },
  "No match is being played.": {
    "ru": "Сейчас не играется ни один матч.",
    "sv": "Ingen match spelas just nu."
  },
  "No match is waiting to start.": {
    "ru": "Нет матчей, ждущих начала.",
    "sv": "Ingen match väntar på att börja."
  },
  "No match is archived.": {
    "ru": "В архиве нет матчей.",
    "sv": "Ingen match är arkiverad."
  },
  "No match has finished yet.": {
    "ru": "Ни один матч ещё не закончен.",
    "sv": "Ingen match är klar än."
  },
  "Which matches to show": {
    "ru": "Какие матчи показывать",
    "sv": "Vilka matcher som visas"
  },
  "Show archived matches": {
    "ru": "Показывать матчи из архива",
    "sv": "Visa arkiverade matcher"
  },
  "The match is made: {title}.": {
    "ru": "Матч создан: {title}.",
    "sv": "Matchen är skapad: {title}."
  },
  "Hand out its links: each player's, the spectators' and the director's are under the match, with their QR codes and table cards to print.": {
    "ru": "Раздайте ссылки: ссылки каждого игрока, зрителей и судьи — под матчем, с QR-кодами и карточками столов для печати.",
    "sv": "Dela ut länkarna: varje spelares, åskådarnas och tävlingsledarens finns under matchen, med sina QR-koder och bordskort att skriva ut."
  },
  "Dismiss": {
    "ru": "Скрыть",
    "sv": "Stäng"
  },
  "Links": {
    "ru": "Ссылки",
    "sv": "Länkar"
  },
  "{n} boards": {
    "en": {
      "one": "{n} board",
      "other": "{n} boards"
    },
    "ru": {
      "one": "{n} сдача",
      "few": "{n} сдачи",
      "many": "{n} сдач",
      "other": "{n} сдачи"
    },
    "sv": {
      "one": "{n} bricka",
      "other": "{n} brickor"
    }
  },
  "{n} rounds": {
    "en": {
      "one": "{n} round",
      "other": "{n} rounds"
    },
    "ru": {
      "one": "{n} тур",
      "few": "{n} тура",
      "many": "{n} туров",
      "other": "{n} тура"
    },
    "sv": {
      "one": "{n} rond",
      "other": "{n} ronder"
    }
  },
  "{compared} of {boards} compared": {
    "ru": "сравнено {compared} из {boards}",
    "sv": "{compared} av {boards} jämförda"
  },
  "made {when}": {
    "ru": "создан {when}",
    "sv": "skapad {when}"
  },
  "Archived": {
    "ru": "В архиве",
    "sv": "Arkiverad"
  },
  "match {id}": {
    "ru": "матч {id}",
    "sv": "match {id}"
  },
  "Links and QR codes": {
    "ru": "Ссылки и QR-коды",
    "sv": "Länkar och QR-koder"
  },
  "Director's page": {
    "ru": "Страница судьи",
    "sv": "Tävlingsledarens sida"
  },
  "Archive": {
    "ru": "В архив",
    "sv": "Arkivera"
  },
  "Unarchive": {
    "ru": "Вернуть из архива",
    "sv": "Ta fram ur arkivet"
  },
  "Waiting to start": {
    "ru": "Ждёт начала",
    "sv": "Väntar på start"
  },
  "Playing": {
    "ru": "Играется",
    "sv": "Spelas"
  },
  "Finished": {
    "ru": "Закончен",
    "sv": "Klar"
  },
  "A claim is being decided": {
    "ru": "Решается претензия",
    "sv": "Ett claim avgörs"
  },
  "No board started yet": {
    "ru": "Ни одна сдача ещё не начата",
    "sv": "Ingen bricka har börjat än"
  },
  "play, trick {trick}": {
    "ru": "розыгрыш, взятка {trick}",
    "sv": "spel, stick {trick}"
  },
  "play": {
    "ru": "розыгрыш",
    "sv": "spel"
  },
  "{n} boards finished here": {
    "en": {
      "one": "{n} board finished here",
      "other": "{n} boards finished here"
    },
    "ru": {
      "one": "Здесь сыграна {n} сдача",
      "few": "Здесь сыграны {n} сдачи",
      "many": "Здесь сыграно {n} сдач",
      "other": "Здесь сыграно {n} сдачи"
    },
    "sv": {
      "one": "{n} bricka klar här",
      "other": "{n} brickor klara här"
    }
  },
  "Who sits at table {table}": {
    "ru": "Кто сидит за столом {table}",
    "sv": "Vem som sitter vid bord {table}"
  },
  "no name yet": {
    "ru": "имени пока нет",
    "sv": "inget namn än"
  },
  "here": {
    "ru": "на месте",
    "sv": "här"
  },
  "{seat} called the director on board {board}: “{text}”": {
    "ru": "{seat} вызвал(а) судью на сдаче {board}: «{text}»",
    "sv": "{seat} kallade på tävlingsledaren på bricka {board}: ”{text}”"
  },
  "{seat} called the director on board {board}": {
    "ru": "{seat} вызвал(а) судью на сдаче {board}",
    "sv": "{seat} kallade på tävlingsledaren på bricka {board}"
  },
  "{seat} called the director: “{text}”": {
    "ru": "{seat} вызвал(а) судью: «{text}»",
    "sv": "{seat} kallade på tävlingsledaren: ”{text}”"
  },
  "{seat} called the director": {
    "ru": "{seat} вызвал(а) судью",
    "sv": "{seat} kallade på tävlingsledaren"
  },
  "Final standings ({unit})": {
    "ru": "Итоговая таблица ({unit})",
    "sv": "Slutställning ({unit})"
  },
  "Standings so far ({unit})": {
    "ru": "Таблица на сейчас ({unit})",
    "sv": "Ställning hittills ({unit})"
  },
  "The links could not be fetched: {reason}": {
    "ru": "Не удалось получить ссылки: {reason}",
    "sv": "Länkarna gick inte att hämta: {reason}"
  },
  "QR code of the spectators' link": {
    "ru": "QR-код ссылки для зрителей",
    "sv": "QR-kod för åskådarnas länk"
  },
  "QR code of the director's link": {
    "ru": "QR-код ссылки судьи",
    "sv": "QR-kod för tävlingsledarens länk"
  },
  "QR code of the link of {seat}, table {table}": {
    "ru": "QR-код ссылки: {seat}, стол {table}",
    "sv": "QR-kod för länken till {seat}, bord {table}"
  },
  "Link of {who}": {
    "ru": "Ссылка: {who}",
    "sv": "Länk: {who}"
  },
  "Copy the link of {who}": {
    "ru": "Копировать ссылку: {who}",
    "sv": "Kopiera länken: {who}"
  },
  "This link cannot be shown again: make a new one to hand out.": {
    "ru": "Эту ссылку нельзя показать снова: создайте новую, чтобы раздать.",
    "sv": "Den här länken kan inte visas igen: skapa en ny att dela ut."
  },
  "A new link: the old one no longer works.": {
    "ru": "Новая ссылка: старая больше не действует.",
    "sv": "En ny länk: den gamla fungerar inte längre."
  },
  "New link for player {player}": {
    "ru": "Новая ссылка для игрока {player}",
    "sv": "Ny länk för spelare {player}"
  },
  "Fetching the links…": {
    "ru": "Получение ссылок…",
    "sv": "Hämtar länkarna…"
  },
  "Each player keeps their link for the whole match, wherever the movement takes them: a phone opens it from its QR code.": {
    "ru": "Каждый игрок пользуется своей ссылкой весь матч, куда бы его ни пересадили: телефон открывает её по QR-коду.",
    "sv": "Varje spelare behåller sin länk hela matchen, var rörelsen än placerar dem: en telefon öppnar den från QR-koden."
  },
  "Spectators": {
    "ru": "Зрители",
    "sv": "Åskådare"
  },
  "Spectators and the director": {
    "ru": "Зрители и судья",
    "sv": "Åskådare och tävlingsledaren"
  },
  "Make a new link for player {player}? Their old link stops working at once (and the server's robot, if it plays for them, stops too).": {
    "ru": "Создать новую ссылку для игрока {player}? Старая ссылка сразу перестанет действовать (и робот сервера, если он играет за игрока, тоже остановится).",
    "sv": "Skapa en ny länk för spelare {player}? Den gamla länken slutar fungera direkt (och serverns robot slutar också, om den spelar för spelaren)."
  },
  "Player {player} has a new link: hand it out.": {
    "ru": "У игрока {player} новая ссылка: передайте её.",
    "sv": "Spelare {player} har en ny länk: dela ut den."
  },
  "No new link: {reason}": {
    "ru": "Новой ссылки нет: {reason}",
    "sv": "Ingen ny länk: {reason}"
  },
  "The record is saved ({format}).": {
    "ru": "Протокол сохранён ({format}).",
    "sv": "Protokollet är sparat ({format})."
  },
  "No record: {reason}": {
    "ru": "Протокола нет: {reason}",
    "sv": "Inget protokoll: {reason}"
  },
  "The match is archived: “Show archived matches” shows it again.": {
    "ru": "Матч в архиве: «Показывать матчи из архива» покажет его снова.",
    "sv": "Matchen är arkiverad: ”Visa arkiverade matcher” visar den igen."
  },
  "The match is back among the others.": {
    "ru": "Матч снова среди остальных.",
    "sv": "Matchen är tillbaka bland de andra."
  },
  "Not archived: {reason}": {
    "ru": "Не отправлен в архив: {reason}",
    "sv": "Inte arkiverad: {reason}"
  },
  "The list of matches could not be fetched: {reason}": {
    "ru": "Не удалось получить список матчей: {reason}",
    "sv": "Listan över matcher gick inte att hämta: {reason}"
  },
  "Table cards: {title}": {
    "ru": "Карточки столов: {title}",
    "sv": "Bordskort: {title}"
  },
  "One page a table: put each on its table. A player opens their seat's link from its QR code.": {
    "ru": "По странице на стол: положите каждую на свой стол. Игрок открывает ссылку своего места по QR-коду.",
    "sv": "En sida per bord: lägg var och en på sitt bord. En spelare öppnar sin plats länk från dess QR-kod."
  },
  "Print": {
    "ru": "Напечатать",
    "sv": "Skriv ut"
  },
  "Back to the console": {
    "ru": "Назад к пульту",
    "sv": "Tillbaka till konsolen"
  },
  "The server's robot plays this seat.": {
    "ru": "За это место играет робот сервера.",
    "sv": "Serverns robot spelar på den här platsen."
  },
  "No link: make a new one in the console.": {
    "ru": "Ссылки нет: создайте новую в пульте.",
    "sv": "Ingen länk: skapa en ny i konsolen."
  },
  "Open your seat's link (scan its QR code with a phone's camera): it is yours for the whole match.": {
    "ru": "Откройте ссылку своего места (наведите камеру телефона на QR-код): она ваша на весь матч.",
    "sv": "Öppna din plats länk (skanna QR-koden med telefonens kamera): den är din hela matchen."
  },
  "A new match": {
    "ru": "Новый матч",
    "sv": "En ny match"
  },
  "The match": {
    "ru": "Матч",
    "sv": "Matchen"
  },
  "Format": {
    "ru": "Формат",
    "sv": "Format"
  },
  "Players": {
    "ru": "Игроки",
    "sv": "Spelare"
  },
  "8 players, 2 tables": {
    "ru": "8 игроков, 2 стола",
    "sv": "8 spelare, 2 bord"
  },
  "12 players, 3 tables": {
    "ru": "12 игроков, 3 стола",
    "sv": "12 spelare, 3 bord"
  },
  "Scoring": {
    "ru": "Подсчёт",
    "sv": "Poängräkning"
  },
  "Team A's name (players 1-4)": {
    "ru": "Название команды А (игроки 1-4)",
    "sv": "Lag A:s namn (spelare 1-4)"
  },
  "Team A's name": {
    "ru": "Название команды А",
    "sv": "Lag A:s namn"
  },
  "Team B's name (players 5-8)": {
    "ru": "Название команды Б (игроки 5-8)",
    "sv": "Lag B:s namn (spelare 5-8)"
  },
  "Team B's name": {
    "ru": "Название команды Б",
    "sv": "Lag B:s namn"
  },
  "Stage 2 starts": {
    "ru": "Второй этап начинается",
    "sv": "Steg 2 börjar"
  },
  "Stage 2 keeps each board's stage-1 auction: only the play is compared": {
    "ru": "Во втором этапе торговля каждой сдачи как в первом: сравнивается только розыгрыш",
    "sv": "Steg 2 behåller varje brickas budgivning från steg 1: bara spelet jämförs"
  },
  "At the tables": {
    "ru": "За столами",
    "sv": "Vid borden"
  },
  "Minutes per board (the round's clock)": {
    "ru": "Минут на сдачу (часы тура)",
    "sv": "Minuter per bricka (rondens klocka)"
  },
  "The director is told when a round's time is up; 0 or empty: no clock.": {
    "ru": "Судье сообщают, когда время тура вышло; 0 или пусто: без часов.",
    "sv": "Tävlingsledaren får veta när rondens tid är slut; 0 eller tomt: ingen klocka."
  },
  "The opening lead is made face down (law 41A)": {
    "ru": "Первый ход делается рубашкой вверх (закон 41A)",
    "sv": "Utspelet görs med baksidan upp (lag 41A)"
  },
  "Each board starts only once its table's four players are there": {
    "ru": "Сдача начинается, только когда все четыре игрока стола на месте",
    "sv": "Varje bricka börjar först när bordets fyra spelare är på plats"
  },
  "Table chat during a board": {
    "ru": "Чат стола во время сдачи",
    "sv": "Bordschatt under en bricka"
  },
  "Review after each board (seconds)": {
    "ru": "Разбор после каждой сдачи (секунд)",
    "sv": "Genomgång efter varje bricka (sekunder)"
  },
  "The next board starts sooner when all four players ask for it; 0: at once.": {
    "ru": "Следующая сдача начнётся раньше, если все четверо попросят; 0: сразу.",
    "sv": "Nästa bricka börjar tidigare om alla fyra spelare ber om det; 0: direkt."
  },
  "Making the match…": {
    "ru": "Создание матча…",
    "sv": "Skapar matchen…"
  },
  "Make the match": {
    "ru": "Создать матч",
    "sv": "Skapa matchen"
  },
  "The robots' table: they play the same cards as table 1.": {
    "ru": "Стол роботов: они играют те же карты, что и стол 1.",
    "sv": "Robotarnas bord: de spelar samma kort som bord 1."
  },
  "The server's robots play this table": {
    "ru": "За этим столом играют роботы сервера",
    "sv": "Serverns robotar spelar vid det här bordet"
  },
  "Their level": {
    "ru": "Их уровень",
    "sv": "Deras nivå"
  },
  "A robot plays {seat}, table {table}": {
    "ru": "Робот играет: {seat}, стол {table}",
    "sv": "En robot spelar {seat}, bord {table}"
  },
  "Robot level, {seat}, table {table}": {
    "ru": "Уровень робота: {seat}, стол {table}",
    "sv": "Robotens nivå, {seat}, bord {table}"
  },
  "Players and robots": {
    "ru": "Игроки и роботы",
    "sv": "Spelare och robotar"
  },
  "By their seat in the first round: each keeps their link, and their name, wherever they move later. A player without a name may give their own at the table.": {
    "ru": "По месту в первом туре: каждый сохраняет свою ссылку и имя, куда бы его потом ни пересадили. Игрок без имени может назвать себя за столом.",
    "sv": "Efter platsen i första ronden: var och en behåller sin länk och sitt namn, vart de än flyttar senare. En spelare utan namn kan ange sitt eget vid bordet."
  },
  "Or paste a roster": {
    "ru": "Или вставьте список игроков",
    "sv": "Eller klistra in en spelarlista"
  },
  "A PBN-style roster: a game per table, [Table \"1\"] (or [Room \"Open\"]) then [North \"Ann\"] [East \"Bo\"]…, a blank line before the next table. A name typed above wins over the roster's.": {
    "ru": "Список в стиле PBN: по игре на стол, [Table \"1\"] (или [Room \"Open\"]), затем [North \"Ann\"] [East \"Bo\"]…, пустая строка перед следующим столом. Имя, введённое выше, важнее имени из списка.",
    "sv": "En spelarlista i PBN-stil: ett parti per bord, [Table \"1\"] (eller [Room \"Open\"]) och sedan [North \"Ann\"] [East \"Bo\"]…, en tom rad före nästa bord. Ett namn som skrivits ovan går före listans."
  },
  "Read a roster from a file": {
    "ru": "Прочитать список из файла",
    "sv": "Läs en spelarlista från en fil"
  },
  "The robots' level": {
    "ru": "Уровень роботов",
    "sv": "Robotarnas nivå"
  },
  "The robots wait before each call or card (seconds)": {
    "ru": "Пауза роботов перед каждой заявкой или картой (секунд)",
    "sv": "Robotarna väntar före varje bud eller kort (sekunder)"
  },
  "the server's setting": {
    "ru": "как настроен сервер",
    "sv": "serverns inställning"
  },
  "Deals": {
    "ru": "Расклады",
    "sv": "Givar"
  },
  "Where the deals come from": {
    "ru": "Откуда берутся расклады",
    "sv": "Var givarna kommer ifrån"
  },
  "A PBN file of prepared boards": {
    "ru": "PBN-файл с готовыми сдачами",
    "sv": "En PBN-fil med förberedda brickor"
  },
  "The PBN text (or paste it here)": {
    "ru": "Текст PBN (или вставьте его сюда)",
    "sv": "PBN-texten (eller klistra in den här)"
  },
  "The match plays the file's first games that have a deal, in the file's order.": {
    "ru": "В матче играются первые игры файла с раскладом, в порядке файла.",
    "sv": "Matchen spelar filens första partier som har en giv, i filens ordning."
  },
  "The server deals from the operating system's secure random source, and commits to the deals before play.": {
    "ru": "Сервер сдаёт карты с помощью надёжного генератора случайных чисел системы и фиксирует расклады до игры.",
    "sv": "Servern ger korten från operativsystemets säkra slumpkälla och binder sig vid givarna före spelet."
  },
  "Neither the server nor you choose the deals alone: the server seals a secret seed first; you publish its commitment; then a public value nobody could know before (a lottery draw, dice thrown in front of the players) draws the boards with it.": {
    "ru": "Ни сервер, ни вы не выбираете расклады в одиночку: сначала сервер запечатывает секретное зерно; вы публикуете его обязательство; затем публичное значение, которое никто не мог знать заранее (тираж лотереи, кубики, брошенные при игроках), вместе с ним определяет сдачи.",
    "sv": "Varken servern eller du väljer givarna ensam: först förseglar servern ett hemligt frö; du publicerar dess åtagande; sedan drar ett offentligt värde som ingen kunde känna till i förväg (en lottodragning, tärningar kastade inför spelarna) brickorna tillsammans med det."
  },
  "1. Seal a seed": {
    "ru": "1. Запечатать зерно",
    "sv": "1. Försegla ett frö"
  },
  "The public value will be written in": {
    "ru": "Публичное значение будет записано",
    "sv": "Det offentliga värdet skrivs med"
  },
  "How many digits": {
    "ru": "Сколько цифр",
    "sv": "Hur många siffror"
  },
  "How it will be drawn (optional)": {
    "ru": "Как его получат (необязательно)",
    "sv": "Hur det dras (valfritt)"
  },
  "five dice thrown by the director, read left to right": {
    "ru": "пять кубиков, брошенных судьёй, слева направо",
    "sv": "fem tärningar kastade av tävlingsledaren, lästa från vänster till höger"
  },
  "Seal the seed": {
    "ru": "Запечатать зерно",
    "sv": "Försegla fröet"
  },
  "Sealed. Publish this before the public value is known:": {
    "ru": "Запечатано. Опубликуйте это до того, как станет известно публичное значение:",
    "sv": "Förseglat. Publicera detta innan det offentliga värdet är känt:"
  },
  "Seed commitment: {commitment}": {
    "ru": "Обязательство зерна: {commitment}",
    "sv": "Fröets åtagande: {commitment}"
  },
  "The public value's form: {form}": {
    "ru": "Форма публичного значения: {form}",
    "sv": "Det offentliga värdets form: {form}"
  },
  "2. The public value": {
    "ru": "2. Публичное значение",
    "sv": "2. Det offentliga värdet"
  },
  "Seal": {
    "ru": "Код печати",
    "sv": "Försegling"
  },
  "Public value": {
    "ru": "Публичное значение",
    "sv": "Offentligt värde"
  },
  "A whole number of boards, 1 to 64.": {
    "ru": "Целое число сдач, от 1 до 64.",
    "sv": "Ett helt antal brickor, 1 till 64."
  },
  "From 0 to 60 minutes.": {
    "ru": "От 0 до 60 минут.",
    "sv": "Från 0 till 60 minuter."
  },
  "Choose a PBN file, or paste its text.": {
    "ru": "Выберите PBN-файл или вставьте его текст.",
    "sv": "Välj en PBN-fil, eller klistra in dess text."
  },
  "Seal a seed first (step 1), or paste a seal you made before.": {
    "ru": "Сначала запечатайте зерно (шаг 1) или вставьте печать, сделанную раньше.",
    "sv": "Försegla först ett frö (steg 1), eller klistra in en försegling du gjort tidigare."
  },
  "The public value, once it is known.": {
    "ru": "Публичное значение, когда оно станет известно.",
    "sv": "Det offentliga värdet, när det är känt."
  },
  "A whole number of seconds, 0 to 600.": {
    "ru": "Целое число секунд, от 0 до 600.",
    "sv": "Ett helt antal sekunder, 0 till 600."
  },
  "From 0 to 10 seconds.": {
    "ru": "От 0 до 10 секунд.",
    "sv": "Från 0 till 10 sekunder."
  },
  "Import a match played elsewhere": {
    "ru": "Импорт матча, сыгранного в другом месте",
    "sv": "Importera en match som spelats någon annanstans"
  },
  "A team match's record, PBN or LIN (BBO's vugraph file): it becomes a finished match here, each board at both tables, with links for its players, spectators and director.": {
    "ru": "Протокол командного матча, PBN или LIN (файл вьюграфа BBO): здесь он становится законченным матчем, каждая сдача за обоими столами, со ссылками для игроков, зрителей и судьи.",
    "sv": "Ett lagmatchprotokoll, PBN eller LIN (BBO:s vugraph-fil): här blir det en färdigspelad match, varje bricka vid båda borden, med länkar för spelarna, åskådarna och tävlingsledaren."
  },
  "The record's file": {
    "ru": "Файл протокола",
    "sv": "Protokollets fil"
  },
  "Its format": {
    "ru": "Его формат",
    "sv": "Dess format"
  },
  "Importing…": {
    "ru": "Импорт…",
    "sv": "Importerar…"
  },
  "Import the match": {
    "ru": "Импортировать матч",
    "sv": "Importera matchen"
  },
  "Choose the record's file first.": {
    "ru": "Сначала выберите файл протокола.",
    "sv": "Välj protokollets fil först."
  },
  "Teams": {
    "ru": "Команды",
    "sv": "Lag"
  },
  "Robot table": {
    "ru": "Стол роботов",
    "sv": "Robotbord"
  },
  "Team of four": {
    "ru": "Команды из четырёх",
    "sv": "Fyrmannalag"
  },
  "Replay duplicate": {
    "ru": "Повторный дубликат",
    "sv": "Replay-duplikat"
  },
  "Individual": {
    "ru": "Индивидуальный",
    "sv": "Individuell"
  },
  "Teams: eight players at two tables": {
    "ru": "Команды: восемь игроков за двумя столами",
    "sv": "Lag: åtta spelare vid två bord"
  },
  "Robot table: four people, the same cards played by robots at table 2": {
    "ru": "Стол роботов: четыре человека, те же карты за столом 2 играют роботы",
    "sv": "Robotbord: fyra personer, samma kort spelas av robotar vid bord 2"
  },
  "Team of four: board exchange, team B's pairs change tables at half-time": {
    "ru": "Команды из четырёх: обмен сдачами, пары команды Б меняют столы в перерыве",
    "sv": "Fyrmannalag: brickbyte, lag B:s par byter bord i halvtid"
  },
  "Replay duplicate: four players, every board replayed turned one seat": {
    "ru": "Повторный дубликат: четыре игрока, каждая сдача переигрывается с поворотом на одно место",
    "sv": "Replay-duplikat: fyra spelare, varje bricka spelas om vriden en plats"
  },
  "Individual: 8 or 12 players, a new partner each round": {
    "ru": "Индивидуальный: 8 или 12 игроков, новый партнёр в каждом туре",
    "sv": "Individuell: 8 eller 12 spelare, ny partner varje rond"
  },
  "Any number of boards; 4 if left empty.": {
    "ru": "Любое число сдач; 4, если пусто.",
    "sv": "Valfritt antal brickor; 4 om tomt."
  },
  "4, 8 or 16 boards; 8 if left empty.": {
    "ru": "4, 8 или 16 сдач; 8, если пусто.",
    "sv": "4, 8 eller 16 brickor; 8 om tomt."
  },
  "A multiple of 4; 8 if left empty.": {
    "ru": "Кратно 4; 8, если пусто.",
    "sv": "En multipel av 4; 8 om tomt."
  },
  "14, 21 or 28 boards; 14 if left empty.": {
    "ru": "14, 21 или 28 сдач; 14, если пусто.",
    "sv": "14, 21 eller 28 brickor; 14 om tomt."
  },
  "11, 22 or 33 boards; 11 if left empty.": {
    "ru": "11, 22 или 33 сдачи; 11, если пусто.",
    "sv": "11, 22 eller 33 brickor; 11 om tomt."
  },
  "As the format scores it": {
    "ru": "Как принято в формате",
    "sv": "Som formatet räknar"
  },
  "Live: both tables as they are played": {
    "ru": "Вживую: оба стола по ходу игры",
    "sv": "Direkt: båda borden medan de spelas"
  },
  "Delayed: each board once every table has finished it": {
    "ru": "С задержкой: каждая сдача, когда её сыграли все столы",
    "sv": "Fördröjt: varje bricka när alla bord har spelat klart den"
  },
  "Off: no spectators' link": {
    "ru": "Выключено: без ссылки для зрителей",
    "sv": "Av: ingen länk för åskådare"
  },
  "To the opponents only": {
    "ru": "Только противникам",
    "sv": "Bara till motståndarna"
  },
  "To the whole table": {
    "ru": "Всему столу",
    "sv": "Till hela bordet"
  },
  "Off": {
    "ru": "Выключен",
    "sv": "Av"
  },
  "As soon as stage 1 is over": {
    "ru": "Сразу после первого этапа",
    "sv": "Så snart steg 1 är över"
  },
  "When the director starts it": {
    "ru": "Когда его начнёт судья",
    "sv": "När tävlingsledaren startar det"
  },
  "As the match's robots": {
    "ru": "Как у роботов матча",
    "sv": "Som matchens robotar"
  },
  "Dealt by the server, at random": {
    "ru": "Сдаёт сервер, случайно",
    "sv": "Givna av servern, slumpvis"
  },
  "From a PBN file": {
    "ru": "Из PBN-файла",
    "sv": "Från en PBN-fil"
  },
  "From a sealed seed and a public value": {
    "ru": "Из запечатанного зерна и публичного значения",
    "sv": "Från ett förseglat frö och ett offentligt värde"
  },
  "Digits": {
    "ru": "Цифрами",
    "sv": "Siffror"
  },
  "Words": {
    "ru": "Словами",
    "sv": "Ord"
  },
  "When a claim is disputed": {
    "ru": "Если претензию оспорили",
    "sv": "När ett claim ifrågasätts"
  },
  "The director rules (law 68D)": {
    "ru": "Решает судья (закон 68D)",
    "sv": "Tävlingsledaren avgör (lag 68D)"
  },
  "Play goes on from the claim": {
    "ru": "Игра продолжается с момента претензии",
    "sv": "Spelet fortsätter från claimet"
  },
  "The server refused the key: {reason}": {
    "ru": "Сервер не принял ключ: {reason}",
    "sv": "Servern godtog inte nyckeln: {reason}"
  },
  "The server refused the key.": {
    "ru": "Сервер не принял ключ.",
    "sv": "Servern godtog inte nyckeln."
  },
  "The organiser key is the server's secret: {command} keeps it in the file {file} of its data folder, unless it was given one. It is sent to the server only, and never kept by this page.": {
    "ru": "Ключ организатора — секрет сервера: {command} хранит его в файле {file} в папке данных, если ему не задали другой. Ключ отправляется только серверу, и эта страница его не сохраняет.",
    "sv": "Arrangörsnyckeln är serverns hemlighet: {command} sparar den i filen {file} i sin datamapp, om den inte fick en annan. Den skickas bara till servern och sparas aldrig av den här sidan."
  },
  "The server's robots play every seat here: no links to hand out.": {
    "ru": "Здесь на всех местах играют роботы сервера: раздавать ссылки не нужно.",
    "sv": "Serverns robotar spelar på alla platser här: inga länkar att dela ut."
  },
  "The server's robots play {seats}: no links to hand out.": {
    "ru": "Роботы сервера играют: {seats} — раздавать ссылки не нужно.",
    "sv": "Serverns robotar spelar {seats}: inga länkar att dela ut."
  },
  "finished": {
    "ru": "сыграна",
    "sv": "klar"
  },
  "Seed (natural)": {
    "ru": "Базовый (естественная)",
    "sv": "Grund (naturligt)"
  },
  "Strong (conventions)": {
    "ru": "Сильный (конвенции)",
    "sv": "Stark (konventioner)"
  },
  "Seed: natural, play by rules": {
    "ru": "Базовый: естественная система, розыгрыш по правилам",
    "sv": "Grund: naturligt, spel efter regler"
  },
  "Strong: conventions, double dummy": {
    "ru": "Сильный: конвенции, double dummy",
    "sv": "Stark: konventioner, dubbel dummy"
  },
  "Download PBN": {
    "ru": "Скачать PBN",
    "sv": "Ladda ner PBN"
  },
  "Download LIN": {
    "ru": "Скачать LIN",
    "sv": "Ladda ner LIN"
  },
  "Table cards": {
    "ru": "Карточки столов",
    "sv": "Bordskort"
  },
  "The match's record as PBN": {
    "ru": "Протокол матча в формате PBN",
    "sv": "Matchens protokoll som PBN"
  },
  "The match's record as LIN, for BBO": {
    "ru": "Протокол матча в формате LIN, для BBO",
    "sv": "Matchens protokoll som LIN, för BBO"
  },
  "Events": {
    "ru": "Турниры",
    "sv": "Tävlingar"
  },
  "Team name: Player 1, Player 2, Player 3, Player 4 (up to 6), or Team name: robots": {
    "ru": "Название команды: Игрок 1, Игрок 2, Игрок 3, Игрок 4 (до 6) или Название команды: robots",
    "sv": "Lagnamn: Spelare 1, Spelare 2, Spelare 3, Spelare 4 (upp till 6), eller Lagnamn: robots"
  },
  "no “:” after the team's name; write {form}": {
    "ru": "нет «:» после названия команды; пишите так: {form}",
    "sv": "inget ”:” efter lagets namn; skriv {form}"
  },
  "the team has no name before the “:”": {
    "ru": "у команды нет названия перед «:»",
    "sv": "laget har inget namn före ”:”"
  },
  "team “{name}”: “robots” stands alone, for a whole team of robots": {
    "ru": "команда «{name}»: «robots» пишется одно, для команды из одних роботов",
    "sv": "laget ”{name}”: ”robots” står ensamt, för ett helt lag av robotar"
  },
  "team “{name}”: an empty player's name (two commas together?)": {
    "ru": "команда «{name}»: пустое имя игрока (две запятые подряд?)",
    "sv": "laget ”{name}”: ett tomt spelarnamn (två kommatecken i rad?)"
  },
  "team “{name}” has {n} players: a team has four to six players, or robots": {
    "en": {
      "one": "team “{name}” has {n} player: a team has four to six players, or robots",
      "other": "team “{name}” has {n} players: a team has four to six players, or robots"
    },
    "ru": {
      "one": "в команде «{name}» {n} игрок: в команде от четырёх до шести игроков или роботы",
      "few": "в команде «{name}» {n} игрока: в команде от четырёх до шести игроков или роботы",
      "many": "в команде «{name}» {n} игроков: в команде от четырёх до шести игроков или роботы",
      "other": "в команде «{name}» {n} игрока: в команде от четырёх до шести игроков или роботы"
    },
    "sv": {
      "one": "laget ”{name}” har {n} spelare: ett lag har fyra till sex spelare, eller robotar",
      "other": "laget ”{name}” har {n} spelare: ett lag har fyra till sex spelare, eller robotar"
    }
  },
  "team “{name}” has no players: a team has four to six players, or robots": {
    "ru": "в команде «{name}» нет игроков: в команде от четырёх до шести игроков или роботы",
    "sv": "laget ”{name}” har inga spelare: ett lag har fyra till sex spelare, eller robotar"
  },
  "team “{name}”: “{player}” is named twice": {
    "ru": "команда «{name}»: «{player}» назван дважды",
    "sv": "laget ”{name}”: ”{player}” står två gånger"
  },
  "team “{name}”: a name is at most 40 characters": {
    "ru": "команда «{name}»: имя — не более 40 символов",
    "sv": "laget ”{name}”: ett namn har högst 40 tecken"
  },
  "Line {line}: {problem}": {
    "ru": "Строка {line}: {problem}",
    "sv": "Rad {line}: {problem}"
  },
  "a second team named “{name}” (the first is on line {first})": {
    "ru": "вторая команда с названием «{name}» (первая — в строке {first})",
    "sv": "ett andra lag med namnet ”{name}” (det första står på rad {first})"
  },
  "{n} teams typed: an event needs two or more, one a line: {form}": {
    "en": {
      "one": "{n} team typed: an event needs two or more, one a line: {form}",
      "other": "{n} teams typed: an event needs two or more, one a line: {form}"
    },
    "ru": {
      "one": "Введена {n} команда: турниру нужны две или больше, по одной в строке: {form}",
      "few": "Введено {n} команды: турниру нужны две или больше, по одной в строке: {form}",
      "many": "Введено {n} команд: турниру нужны две или больше, по одной в строке: {form}",
      "other": "Введено {n} команды: турниру нужны две или больше, по одной в строке: {form}"
    },
    "sv": {
      "one": "{n} lag angivet: en tävling behöver två eller fler, ett per rad: {form}",
      "other": "{n} lag angivna: en tävling behöver två eller fler, ett per rad: {form}"
    }
  },
  "{n} teams typed: an event has at most 40": {
    "ru": "Введено команд: {n}; в турнире не больше 40",
    "sv": "{n} lag angivna: en tävling har högst 40"
  },
  "Not begun: {n} rounds": {
    "en": {
      "one": "Not begun: {n} round",
      "other": "Not begun: {n} rounds"
    },
    "ru": {
      "one": "Не начат: {n} тур",
      "few": "Не начат: {n} тура",
      "many": "Не начат: {n} туров",
      "other": "Не начат: {n} тура"
    },
    "sv": {
      "one": "Inte påbörjad: {n} rond",
      "other": "Inte påbörjad: {n} ronder"
    }
  },
  "The list of events could not be fetched: {reason}": {
    "ru": "Не удалось получить список турниров: {reason}",
    "sv": "Listan över tävlingar kunde inte hämtas: {reason}"
  },
  "The event could not be fetched: {reason}": {
    "ru": "Не удалось получить турнир: {reason}",
    "sv": "Tävlingen kunde inte hämtas: {reason}"
  },
  "A new event": {
    "ru": "Новый турнир",
    "sv": "En ny tävling"
  },
  "The event": {
    "ru": "Турнир",
    "sv": "Tävlingen"
  },
  "← All events": {
    "ru": "← Все турниры",
    "sv": "← Alla tävlingar"
  },
  "New event": {
    "ru": "Новый турнир",
    "sv": "Ny tävling"
  },
  "An event is a round robin or a Swiss of many two-table team matches, each converted to victory points (VPs).": {
    "ru": "Турнир — это круговой турнир или швейцарка из многих командных матчей на двух столах; каждый матч переводится в победные очки (ВП).",
    "sv": "En tävling är en allsvensk eller en monrad av många lagmatcher vid två bord, var och en omräknad till segerpoäng (VP)."
  },
  "Loading the events…": {
    "ru": "Загружаем турниры…",
    "sv": "Hämtar tävlingarna…"
  },
  "No event yet: make one with “New event”.": {
    "ru": "Турниров пока нет: создайте турнир кнопкой «Новый турнир».",
    "sv": "Ingen tävling än: skapa en med ”Ny tävling”."
  },
  "Kind": {
    "ru": "Вид",
    "sv": "Typ"
  },
  "Status": {
    "ru": "Состояние",
    "sv": "Läge"
  },
  "Leader": {
    "ru": "Лидер",
    "sv": "Ledare"
  },
  "At most the number of teams less one (as many as the teams when they are odd).": {
    "ru": "Не больше числа команд минус один (столько же, сколько команд, если их нечётное число).",
    "sv": "Högst antalet lag minus ett (lika många som lagen när de är udda)."
  },
  "A round robin plays every other team once: its rounds follow from the teams.": {
    "ru": "В круговом турнире каждая команда играет с каждой один раз: число туров следует из числа команд.",
    "sv": "I en allsvensk möter varje lag alla andra en gång: ronderna följer av lagen."
  },
  "Boards a round": {
    "ru": "Сдач в туре",
    "sv": "Brickor per rond"
  },
  "1 to 32; every match of a round plays the same boards.": {
    "ru": "От 1 до 32; все матчи тура играют одни и те же сдачи.",
    "sv": "1 till 32; alla matcher i en rond spelar samma brickor."
  },
  "The first round": {
    "ru": "Первый тур",
    "sv": "Första ronden"
  },
  "VPs for a bye": {
    "ru": "ВП за пропуск тура",
    "sv": "VP för att stå över"
  },
  "What a team sitting out a round scores (0 to 20).": {
    "ru": "Сколько получает команда, пропускающая тур (от 0 до 20).",
    "sv": "Vad ett lag som står över en rond får (0 till 20)."
  },
  "Rounds begin": {
    "ru": "Туры начинаются",
    "sv": "Ronderna börjar"
  },
  "The teams": {
    "ru": "Команды",
    "sv": "Lagen"
  },
  "The teams, one a line": {
    "ru": "Команды, по одной в строке",
    "sv": "Lagen, ett per rad"
  },
  "Write each team as {form}. The first four players play every match; blank lines and lines beginning with # are skipped.": {
    "ru": "Пишите каждую команду так: {form}. Первые четыре игрока играют все матчи; пустые строки и строки, начинающиеся с #, пропускаются.",
    "sv": "Skriv varje lag som {form}. De fyra första spelarna spelar varje match; tomma rader och rader som börjar med # hoppas över."
  },
  "Making the event…": {
    "ru": "Создаём турнир…",
    "sv": "Skapar tävlingen…"
  },
  "Make the event": {
    "ru": "Создать турнир",
    "sv": "Skapa tävlingen"
  },
  "How many rounds the Swiss plays.": {
    "ru": "Сколько туров играет швейцарка.",
    "sv": "Hur många ronder monraden spelar."
  },
  "A whole number of rounds, 1 to 39.": {
    "ru": "Целое число туров, от 1 до 39.",
    "sv": "Ett heltal ronder, 1 till 39."
  },
  "A whole number of boards, 1 to 32.": {
    "ru": "Целое число сдач, от 1 до 32.",
    "sv": "Ett heltal brickor, 1 till 32."
  },
  "From 0 to 20 VPs.": {
    "ru": "От 0 до 20 ВП.",
    "sv": "Från 0 till 20 VP."
  },
  "The event is made.": {
    "ru": "Турнир создан.",
    "sv": "Tävlingen är skapad."
  },
  "Loading the event…": {
    "ru": "Загружаем турнир…",
    "sv": "Hämtar tävlingen…"
  },
  "event {id}": {
    "ru": "турнир {id}",
    "sv": "tävling {id}"
  },
  "The event is made and round 1 has begun: hand out the results link, and each match's links (under “Links”).": {
    "ru": "Турнир создан, и тур 1 начался: раздайте ссылку на результаты и ссылки каждого матча (под кнопкой «Ссылки»).",
    "sv": "Tävlingen är skapad och rond 1 har börjat: dela ut resultatlänken och varje matchs länkar (under ”Länkar”)."
  },
  "The event is made: hand out the results link, and each match's links once its round has begun.": {
    "ru": "Турнир создан: раздайте ссылку на результаты, а ссылки каждого матча — когда начнётся его тур.",
    "sv": "Tävlingen är skapad: dela ut resultatlänken, och varje matchs länkar när dess rond har börjat."
  },
  "The results link": {
    "ru": "Ссылка на результаты",
    "sv": "Resultatlänken"
  },
  "Open the results page": {
    "ru": "Открыть страницу результатов",
    "sv": "Öppna resultatsidan"
  },
  "Anyone may have this link: it shows the standings and each match once it has ended, never a board still being played. Put it on the club's screen or send it to the players.": {
    "ru": "Эту ссылку можно давать кому угодно: она показывает таблицу и каждый матч после его окончания, но никогда — сдачу, которая ещё играется. Покажите её на экране клуба или отправьте игрокам.",
    "sv": "Vem som helst får ha den här länken: den visar ställningen och varje match när den är slut, aldrig en bricka som fortfarande spelas. Visa den på klubbens skärm eller skicka den till spelarna."
  },
  "Round {round} is drawn": {
    "ru": "Тур {round} составлен",
    "sv": "Rond {round} är lottad"
  },
  "{team} sits out": {
    "ru": "{team} пропускает тур",
    "sv": "{team} står över"
  },
  "Pair this round by hand": {
    "ru": "Составить пары этого тура вручную",
    "sv": "Para ihop den här ronden för hand"
  },
  "A round robin keeps its schedule.": {
    "ru": "Круговой турнир идёт по своему расписанию.",
    "sv": "En allsvensk följer sitt schema."
  },
  "Match {n}: home": {
    "ru": "Матч {n}: хозяева",
    "sv": "Match {n}: hemma"
  },
  "Match {n}: away": {
    "ru": "Матч {n}: гости",
    "sv": "Match {n}: borta"
  },
  "Sits out": {
    "ru": "Пропускает тур",
    "sv": "Står över"
  },
  "Begin round {round}": {
    "ru": "Начать тур {round}",
    "sv": "Starta rond {round}"
  },
  "Choose a team": {
    "ru": "Выберите команду",
    "sv": "Välj ett lag"
  },
  "Adjust VPs": {
    "ru": "Корректировка ВП",
    "sv": "Justera VP"
  },
  "A penalty below 0, an award above: it counts in the standings at once.": {
    "ru": "Штраф — меньше 0, компенсация — больше: сразу учитывается в таблице.",
    "sv": "Ett straff under 0, en kompensation över: det räknas i ställningen direkt."
  },
  "late start": {
    "ru": "опоздание к началу",
    "sv": "sen start"
  },
  "Adjust": {
    "ru": "Скорректировать",
    "sv": "Justera"
  },
  "IMPs {home}–{away}": {
    "ru": "IMP {home}–{away}",
    "sv": "IMP {home}–{away}"
  },
  "VPs {home}–{away}": {
    "ru": "ВП {home}–{away}",
    "sv": "VP {home}–{away}"
  },
  "Not begun": {
    "ru": "Не начат",
    "sv": "Inte påbörjad"
  },
  "IMPs and VPs once it has ended": {
    "ru": "IMP и ВП — после окончания",
    "sv": "IMP och VP när den är slut"
  },
  "Round {round} has begun.": {
    "ru": "Тур {round} начался.",
    "sv": "Rond {round} har börjat."
  },
  "Choose the team.": {
    "ru": "Выберите команду.",
    "sv": "Välj laget."
  },
  "From −20 to 20 VPs, not 0: below 0 a penalty, above an award.": {
    "ru": "От −20 до 20 ВП, не 0: меньше 0 — штраф, больше — компенсация.",
    "sv": "Från −20 till 20 VP, inte 0: under 0 ett straff, över en kompensation."
  },
  "Say why.": {
    "ru": "Укажите причину.",
    "sv": "Ange skälet."
  },
  "The VPs of {team} are adjusted.": {
    "ru": "ВП команды {team} скорректированы.",
    "sv": "VP för {team} är justerade."
  },
  "Seeded, in the order typed": {
    "ru": "По посеву, в порядке ввода",
    "sv": "Seedad, i den ordning de skrevs"
  },
  "Drawn at random": {
    "ru": "По жребию",
    "sv": "Lottad slumpvis"
  },
  "At once, when the round before ends": {
    "ru": "Сразу, когда закончится предыдущий тур",
    "sv": "Direkt, när ronden före är slut"
  },
  "When the director begins it": {
    "ru": "Когда его начнёт судья",
    "sv": "När tävlingsledaren startar den"
  },
  "Seeded: the top half of the teams, in the order typed, meets the bottom half.": {
    "ru": "По посеву: верхняя половина команд, в порядке ввода, играет с нижней.",
    "sv": "Seedad: den övre halvan av lagen, i den ordning de skrevs, möter den nedre."
  },
  "When the director begins it: each round waits for “Begin round” on the event's page.": {
    "ru": "«Когда его начнёт судья»: каждый тур ждёт кнопки «Начать тур» на странице турнира.",
    "sv": "”När tävlingsledaren startar den”: varje rond väntar på ”Starta rond” på tävlingens sida."
  },
  "The new boards each meeting plays; 4 if left empty. At most 64 in all (new boards × the meetings after the first).": {
    "ru": "Новые сдачи каждой встречи; 4, если пусто. Всего не более 64 (новые сдачи × число встреч после первой).",
    "sv": "Antal nya brickor per träff; 4 om tomt. Högst 64 totalt (nya brickor × träffarna efter den första)."
  },
  "As soon as the one before is over": {
    "ru": "Сразу после окончания предыдущей",
    "sv": "Så snart den föregående är slut"
  },
  "New boards per meeting": {
    "ru": "Новых сдач на встречу",
    "sv": "Nya brickor per träff"
  },
  "Meetings": {
    "ru": "Встречи",
    "sv": "Träffar"
  },
  "Empty: a single replay match. 2 to 12: a series, in which each meeting replays the last one's new boards, turned, then plays new ones (the first only plays, the last only replays); Boards then counts each meeting's new boards.": {
    "ru": "Пусто: один матч повторного дубликата. От 2 до 12: серия, в которой каждая встреча переигрывает с поворотом новые сдачи предыдущей, а затем играет новые (первая только играет, последняя только переигрывает); «Сдачи» тогда — число новых сдач каждой встречи.",
    "sv": "Tomt: en enda replay-match. 2 till 12: en serie, där varje träff spelar om den föregåendes nya brickor, vridna, och sedan spelar nya (den första spelar bara, den sista spelar bara om); Brickor anger då varje träffs nya brickor."
  },
  "Each later meeting starts": {
    "ru": "Каждая следующая встреча начинается",
    "sv": "Varje senare träff börjar"
  },
  "A whole number of meetings, 2 to 12 (empty: a single match).": {
    "ru": "Целое число встреч, от 2 до 12 (пусто: один матч).",
    "sv": "Ett heltal träffar, 2 till 12 (tomt: en enda match)."
  },
  "{boards} new boards in each of {n} meetings make {total} boards: at most 64.": {
    "ru": "Новых сдач на встречу: {boards}, встреч с новыми сдачами: {n}; всего сдач: {total}, а можно не более 64.",
    "sv": "{boards} nya brickor i var och en av {n} träffar blir {total} brickor: högst 64."
  },
  "A replayed board keeps its first auction: only the play is compared": {
    "ru": "Переигранная сдача сохраняет свою первую торговлю: сравнивается только розыгрыш",
    "sv": "En omspelad bricka behåller sin första budgivning: bara spelet jämförs"
  }
}
