"""Countries by the words a page's lead sentence says them with: its name or its people's
adjective ("an American film director", "a parish in the United States", "situated at
Muzaffargarh, Pakistan"). Names that are also given names or American states (Jordan, Chad,
Georgia) are left out, and so are languages and peoples that are no one country (Hindi, Arab,
Kurdish, Latin). Historical states are their own (Soviet, Ottoman, Prussian); the nations of
the United Kingdom are the United Kingdom, which is what a citizenship says of them."""

from __future__ import annotations

import re

_SAID = """
United States: American; United States, U.S., USA, United States of America
United Kingdom: British, English, Scottish, Welsh, Northern Irish; United Kingdom, UK,
    Britain, Great Britain, England, Scotland, Wales
Ireland: Irish; Ireland
Canada: Canadian; Canada
Australia: Australian; Australia
New Zealand: New Zealander; New Zealand
France: French; France
Germany: German, West German, East German; Germany, West Germany, East Germany
Austria: Austrian; Austria
Switzerland: Swiss; Switzerland
Italy: Italian; Italy
Spain: Spanish; Spain
Portugal: Portuguese; Portugal
Netherlands: Dutch; Netherlands, Holland
Belgium: Belgian; Belgium
Luxembourg: Luxembourgish; Luxembourg
Denmark: Danish; Denmark
Sweden: Swedish; Sweden
Norway: Norwegian; Norway
Finland: Finnish; Finland
Iceland: Icelandic; Iceland
Poland: Polish; Poland
Czech Republic: Czech; Czech Republic, Czechia
Czechoslovakia: Czechoslovak, Czechoslovakian; Czechoslovakia
Slovakia: Slovak, Slovakian; Slovakia
Hungary: Hungarian; Hungary
Romania: Romanian; Romania
Bulgaria: Bulgarian; Bulgaria
Greece: Greek; Greece
Turkey: Turkish; Turkey
Ottoman Empire: Ottoman; Ottoman Empire
Russia: Russian; Russia
Soviet Union: Soviet; Soviet Union, USSR
Ukraine: Ukrainian; Ukraine
Belarus: Belarusian; Belarus
Lithuania: Lithuanian; Lithuania
Latvia: Latvian; Latvia
Estonia: Estonian; Estonia
Yugoslavia: Yugoslav, Yugoslavian; Yugoslavia
Serbia: Serbian; Serbia
Croatia: Croatian; Croatia
Slovenia: Slovenian, Slovene; Slovenia
Bosnia and Herzegovina: Bosnian; Bosnia and Herzegovina, Bosnia
Albania: Albanian; Albania
Armenia: Armenian; Armenia
Azerbaijan: Azerbaijani; Azerbaijan
Prussia: Prussian; Prussia
Israel: Israeli
Iran: Iranian, Persian; Iran
Iraq: Iraqi; Iraq
Syria: Syrian; Syria
Lebanon: Lebanese; Lebanon
Egypt: Egyptian; Egypt
Morocco: Moroccan; Morocco
Algeria: Algerian; Algeria
Tunisia: Tunisian; Tunisia
Libya: Libyan; Libya
Nigeria: Nigerian; Nigeria
Ghana: Ghanaian; Ghana
Senegal: Senegalese; Senegal
Kenya: Kenyan; Kenya
Ethiopia: Ethiopian; Ethiopia
South Africa: South African; South Africa
Zimbabwe: Zimbabwean; Zimbabwe
Saudi Arabia: Saudi, Saudi Arabian; Saudi Arabia
Pakistan: Pakistani; Pakistan
India: Indian; India
Bangladesh: Bangladeshi; Bangladesh
Sri Lanka: Sri Lankan; Sri Lanka
Nepal: Nepalese, Nepali; Nepal
China: Chinese; China
Hong Kong: Hong Kong
Taiwan: Taiwanese; Taiwan
Japan: Japanese; Japan
South Korea: South Korean, Korean; South Korea, Korea
North Korea: North Korean; North Korea
Vietnam: Vietnamese; Vietnam
Thailand: Thai; Thailand
Philippines: Filipino, Philippine; Philippines
Indonesia: Indonesian; Indonesia
Malaysia: Malaysian; Malaysia
Singapore: Singaporean; Singapore
Mexico: Mexican; Mexico
Cuba: Cuban; Cuba
Brazil: Brazilian; Brazil
Argentina: Argentine, Argentinian; Argentina
Chile: Chilean; Chile
Peru: Peruvian; Peru
Colombia: Colombian; Colombia
Venezuela: Venezuelan; Venezuela
Uruguay: Uruguayan; Uruguay
Paraguay: Paraguayan; Paraguay
Bolivia: Bolivian; Bolivia
Ecuador: Ecuadorian; Ecuador
Jamaica: Jamaican; Jamaica
Puerto Rico: Puerto Rican; Puerto Rico
"""


def _table(part: int) -> dict[str, str]:
    said: dict[str, str] = {}
    for entry in re.split(r"\n(?=\S)", _SAID.strip()):
        country, words = entry.split(":", 1)
        for word in [*words.split(";"), ""][part].split(","):
            if word.strip():
                said[" ".join(word.split())] = country
    return said


# "Country: its people's adjectives; its names": how a lead says it, to the country
ADJECTIVES, NAMES = _table(0), _table(1)
