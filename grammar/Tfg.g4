// The tfg language. interp/language/parser.cc turns the parse tree into the AST of
// interp/language/ast.h; its transform functions follow these rules one for one.
//
// Statements end at a newline or ';'. Newlines inside ( ) and [ ] are not
// tokens at all: the lexer keeps a stack of open brackets and drops a newline
// while the innermost one is '(' or '['. Inside { } (blocks, and dict
// literals, which allow newlines between items) they stay significant, so a
// lambda body inside call parentheses still has one statement per line.
//
// Binary operators are written as flat loops, not left recursion: the parse
// tree stays shallow and the AST builder folds each chain iteratively.
//
// Big data stays cheap: a list literal of nothing but numbers (and nested
// lists of numbers) reaches the parser as one NUMBER_LIST token, made by the
// driver's lexer (interp/language/parser_lexer.h), not by a rule here;
// the AST builder packs it into one ast::NumberList.
grammar Tfg;

tokens { NUMBER_LIST }

@lexer::members {
  // The kinds of the brackets open at this point of the input, innermost last.
  // A closer pops whatever is on top; mismatches are reported by the parser's
  // own bracket check, which knows where each bracket was opened.
  std::vector<char> open_brackets;
  void OpenBracket(char kind) { open_brackets.push_back(kind); }
  void CloseBracket() {
    if (!open_brackets.empty()) open_brackets.pop_back();
  }
  bool InsideParens() const {
    return !open_brackets.empty() && open_brackets.back() != '{';
  }
}

// ------------------------------------------------------------------ statements

// The driver parses a file one top-level statement at a time, so only one
// statement's parse tree is alive at once, and checks that what follows a
// statement without a separator is the end of the file.
topLevel  : sep* (statement sep?)? ;
block     : '{' stmtList '}' ;
stmtList  : sep* (statement (sep+ statement)*)? sep* ;
sep       : NEWLINE | ';' ;

statement
  : fnDef
  | ifStmt
  | forStmt
  | whileStmt
  | withStmt
  | tryStmt
  | importStmt
  | returnStmt
  | breakStmt
  | continueStmt
  | passStmt
  | simpleStmt
  ;

// Assignment, augmented assignment or an expression statement; the AST
// builder checks the targets (names, indexing, attributes). Several values
// separated by commas (`a, b = b, a`, `return x, y`) make a list, as a
// Python tuple would.
simpleStmt : exprList (assignOp exprList)? ;
exprList   : expr (',' expr)* ;
assignOp   : '=' | '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '@=' ;

fnDef      : 'fn' NAME '(' params? ')' block ;
params     : param (',' param)* ','? ;
param      : NAME ('=' expr)? ;

// `else` may start a new line after the closing brace.
ifStmt     : 'if' expr block (NEWLINE* elseIf)* (NEWLINE* 'else' block)? ;
elseIf     : ('else' 'if' | 'elif') expr block ;

forStmt    : 'for' NAME (',' NAME)* 'in' expr block ;
whileStmt  : 'while' expr block ;
withStmt   : 'with' expr ('as' NAME)? block ;
tryStmt    : 'try' block (NEWLINE* exceptClause)+ ;
exceptClause : 'except' kind=NAME? ('as' alias=NAME)? block ;
importStmt : 'import' (NAME | STRING) ('as' alias=NAME)? ;
returnStmt : 'return' exprList? ;
breakStmt  : 'break' ;
continueStmt : 'continue' ;
passStmt   : 'pass' ;

// ----------------------------------------------------------------- expressions
// Python's precedence, lowest first.

expr       : andExpr ('or' andExpr)* ;
andExpr    : notExpr ('and' notExpr)* ;
notExpr    : 'not' notExpr | comparison ;
// Chains like a < b < c are rejected by the AST builder with a hint.
comparison : arith (compOp arith)* ;
// `in` and `not in` test membership in a host list, dict, string or range.
compOp     : '<' | '<=' | '>' | '>=' | '==' | '!=' | 'in' | 'not' 'in' ;
arith      : term (('+' | '-') term)* ;
term       : factor (('*' | '/' | '//' | '%' | '@') factor)* ;
// Unary minus binds looser than ** on its right: -x**2 == -(x**2), 2**-1 ok.
factor     : ('-' | '+') factor | power ;
power      : postfix ('**' factor)? ;
postfix    : atom trailer* ;
trailer
  : '(' arguments? ')'       # callTrailer
  | '.' NAME                 # attributeTrailer
  | '[' subscripts ']'       # indexTrailer
  ;
arguments  : argument (',' argument)* ','? ;
argument   : NAME '=' expr | expr ;
// A trailing comma shows up as a last empty subscript, which the AST builder
// drops; any other empty subscript is an error there.
subscripts : subscript (',' subscript)* ;
// Every part is optional; `...` stands for as many whole dimensions as
// the other subscripts leave (NumPy's Ellipsis).
subscript  : ELLIPSIS | lower=expr? (':' upper=expr? (':' stride=expr?)?)? ;

atom
  : INT
  | FLOAT
  | STRING
  | FSTRING
  | 'true' | 'True'
  | 'false' | 'False'
  | 'none' | 'None'
  | '?'
  | NAME
  | group
  | NUMBER_LIST
  | listLit
  | dictLit
  | lambda
  ;
// `(a)` groups; Python's tuples, `()`, `(a,)` and `(a, b)`, are parsed so
// that the AST builder can say to write a list instead. One rule for both
// (and one each for lists and dicts with their comprehensions) so that a
// mistake inside is reported by the rule it is in ("expected ',' or ']'"),
// not as an undecidable choice between two rules.
group      : '(' (expr (',' (expr (',' expr)* ','?)?)?)? ')' ;
// Python's comprehensions: [x * 2 for x in xs if x > 0], {k: v for k, v in d.items()}.
// The loop variables are local to the comprehension, as in Python 3.
listLit    : '[' (expr (compFor | (',' expr)* ','?))? ']' ;
dictLit    : '{' NEWLINE* (dictItem (compFor | (NEWLINE* ',' NEWLINE* dictItem)* (NEWLINE* ',')?))? NEWLINE* '}' ;
dictItem   : expr ':' expr ;
compFor    : 'for' NAME (',' NAME)* 'in' expr compIf* compFor? ;
compIf     : 'if' expr ;
lambda     : 'fn' '(' params? ')' block ;

// ---------------------------------------------------------------------- tokens

KW_FN       : 'fn' ;
KW_RETURN   : 'return' ;
KW_IF       : 'if' ;
KW_ELSE     : 'else' ;
KW_ELIF     : 'elif' ;
KW_FOR      : 'for' ;
KW_IN       : 'in' ;
KW_WHILE    : 'while' ;
KW_BREAK    : 'break' ;
KW_CONTINUE : 'continue' ;
KW_IMPORT   : 'import' ;
KW_AS       : 'as' ;
KW_WITH     : 'with' ;
KW_TRY      : 'try' ;
KW_EXCEPT   : 'except' ;
KW_PASS     : 'pass' ;
KW_TRUE     : 'true' ;
KW_FALSE    : 'false' ;
KW_NONE     : 'none' ;
// Python's spellings of the three constants, accepted as aliases.
PY_TRUE     : 'True' ;
PY_FALSE    : 'False' ;
PY_NONE     : 'None' ;
KW_AND      : 'and' ;
KW_OR       : 'or' ;
KW_NOT      : 'not' ;

LPAREN   : '(' { OpenBracket('('); } ;
RPAREN   : ')' { CloseBracket(); } ;
LBRACK   : '[' { OpenBracket('['); } ;
RBRACK   : ']' { CloseBracket(); } ;
LBRACE   : '{' { OpenBracket('{'); } ;
RBRACE   : '}' { CloseBracket(); } ;

COMMA    : ',' ;
COLON    : ':' ;
SEMI     : ';' ;
ELLIPSIS : '...' ;
DOT      : '.' ;
QUESTION : '?' ;

ASSIGN         : '=' ;
PLUS_ASSIGN    : '+=' ;
MINUS_ASSIGN   : '-=' ;
STAR_ASSIGN    : '*=' ;
SLASH_ASSIGN   : '/=' ;
FLOORDIV_ASSIGN : '//=' ;
PERCENT_ASSIGN : '%=' ;
AT_ASSIGN      : '@=' ;

POW      : '**' ;
STAR     : '*' ;
FLOORDIV : '//' ;
SLASH    : '/' ;
PERCENT  : '%' ;
AT       : '@' ;
PLUS     : '+' ;
MINUS    : '-' ;
LE       : '<=' ;
LT       : '<' ;
GE       : '>=' ;
GT       : '>' ;
EQ       : '==' ;
NE       : '!=' ;

FLOAT    : DIGIT+ '.' DIGIT* EXPONENT? | '.' DIGIT+ EXPONENT? | DIGIT+ EXPONENT ;
INT      : DIGIT+ | '0' [xX] HEX_DIGIT+ ;
// Escapes are decoded (and checked) by the AST builder.
STRING   : '"' (ESCAPE | ~["\\\r\n])* '"' | '\'' (ESCAPE | ~['\\\r\n])* '\'' ;
// f"x = {x:.3f}": the AST builder splits the text into literal parts and
// the expressions in braces (each parsed where it stands, for its spans).
FSTRING  : [fF] ('"' (ESCAPE | ~["\\\r\n])* '"' | '\'' (ESCAPE | ~['\\\r\n])* '\'') ;
// Never accepted by the parser; it turns into "unterminated string".
UNTERMINATED_STRING
         : '"' (ESCAPE | ~["\\\r\n])* '\\'? | '\'' (ESCAPE | ~['\\\r\n])* '\\'? ;
NAME     : [A-Za-z_] [A-Za-z0-9_]* ;

NEWLINE  : ('\r'? '\n' | '\r') { if (InsideParens()) skip(); } ;
WS       : [ \t\f]+ -> skip ;
// Also covers a `#!` first line.
COMMENT  : '#' ~[\r\n]* -> skip ;
// Any other character; the parser reports it as unexpected.
ERROR_CHAR : . ;

fragment DIGIT     : [0-9] ;
fragment HEX_DIGIT : [0-9a-fA-F] ;
fragment EXPONENT  : [eE] [+-]? DIGIT+ ;
fragment ESCAPE    : '\\' ~[\r\n] ;
