/**
 * @file Tree-sitter grammar for NiLang, a reversible programming language.
 * @license MIT
 *
 * Statements end at a newline or `;`. A newline is only a terminator where a
 * statement may end; inside parentheses and brackets, and after a binary
 * operator, it is ordinary white space (the same trick tree-sitter-go uses).
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  or: 1,
  and: 2,
  compare: 3,
  add: 5,
  mul: 6,
  shift: 7,
  unary: 8,
  power: 9,
  postfix: 10,
};

// Letters: ASCII, Latin-1 and Latin Extended-A/B (without the operators
// × and ÷), Greek and the letterlike symbols (ℯ, ℝ, ...).
const IDENT = /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF\u2100-\u214F][A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF\u2100-\u214F]*!?/;

function commaSep(rule) {
  return optional(commaSep1(rule));
}

function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)), optional(','));
}

module.exports = grammar({
  name: 'nilang',

  extras: $ => [$.comment, /\s/],

  word: $ => $.identifier,

  // Keywords are never identifiers, not even where no keyword could appear
  // (without this `function += 1` would be an instruction, and a missing
  // `end` would swallow the next `end` as a variable). `in` and `reverse`
  // stay usable as names: they are keywords only after `for i` and `=`.
  reserved: {
    global: _ => [
      'function', 'end', 'if', 'elseif', 'else', 'while', 'for', 'begin', 'where',
      'true', 'false', 'struct',
    ],
  },

  conflicts: $ => [
    [$.generic_type, $._expression],
    [$.type_identifier, $._expression],
  ],

  supertypes: $ => [$._statement, $._expression, $._type],

  rules: {
    source_file: $ => repeat(choice(
      $.function_definition,
      $.struct_definition,
      $.using_declaration,
      $.import_declaration,
      $._terminator,
    )),

    // `using std.linalg`: every function of another package's module (or of
    // a whole package, `using std`) by its own name.
    using_declaration: $ => seq('using', field('module', $.module_path)),

    // `import std.linalg: i_dot, i_norm2`: the functions named, and no others.
    import_declaration: $ => seq(
      'import',
      field('module', $.module_path),
      ':',
      commaSep1(field('name', $.identifier)),
    ),

    module_path: $ => seq($.identifier, repeat(seq('.', $.identifier))),

    // ---------------------------------------------------------------- items

    function_definition: $ => seq(
      optional(field('doc', $.docstring)),
      repeat(field('attribute', $.function_attribute)),
      'function',
      field('name', $.identifier),
      field('parameters', $.parameter_list),
      optional(field('where', $.where_clause)),
      field('body', optional($.block)),
      'end',
    ),

    docstring: $ => $.string,

    // `struct Point{T} x::T; y::T end`, or one field a line: a user type
    // whose values are built by `p ← Point(a, b)` and taken apart by
    // `p → Point(a, b)`.
    struct_definition: $ => seq(
      optional(field('doc', $.docstring)),
      'struct',
      field('name', $.identifier),
      optional(seq('{', commaSep1(field('parameter', $.type_bound)), '}')),
      repeat(choice(field('field', $.struct_field), $._terminator)),
      'end',
    ),

    struct_field: $ => seq(
      field('name', $.identifier),
      '::',
      field('type', $._type),
    ),

    function_attribute: $ => choice('@kernel', '@inline', $.primitive_attribute),

    // `@primitive(d)`: the gradient program uses the derivatives computed
    // by the function `d` instead of differentiating the body.
    primitive_attribute: $ => seq(
      '@primitive',
      '(',
      field('derivative', $.identifier),
      ')',
    ),

    parameter_list: $ => seq(
      '(',
      commaSep(field('parameter', $.parameter)),
      optional(seq(';', commaSep(field('keyword', $.keyword_parameter)))),
      ')',
    ),

    parameter: $ => seq(
      field('name', $.identifier),
      optional(seq('::', field('type', $._type))),
    ),

    keyword_parameter: $ => seq(
      field('name', $.identifier),
      optional(seq('::', field('type', $._type))),
      '=',
      field('default', $._expression),
    ),

    where_clause: $ => seq(
      'where',
      choice(
        seq(field('bound', $.type_bound), repeat(seq(',', field('bound', $.type_bound)))),
        seq('{', commaSep1(field('bound', $.type_bound)), '}'),
      ),
    ),

    type_bound: $ => prec.right(seq(
      field('name', $.identifier),
      optional(seq(
        choice(':', '<:'),
        field('trait', $.identifier),
        repeat(seq('+', field('trait', $.identifier))),
      )),
    )),

    // ---------------------------------------------------------------- types

    _type: $ => choice($.type_identifier, $.generic_type, $.slice_type, $.tuple_type),

    type_identifier: $ => $.identifier,

    generic_type: $ => seq(
      field('name', $.identifier),
      choice('<', '{'),
      commaSep1(field('argument', $._type)),
      choice('>', '}'),
    ),

    slice_type: $ => seq('[', field('element', $._type), ']'),

    tuple_type: $ => seq('(', commaSep(field('element', $._type)), ')'),

    // ---------------------------------------------------------------- statements

    _terminator: _ => choice('\n', ';'),

    // The last statement of a block may sit on the line of its `end`.
    block: $ => choice(
      seq(repeat1($._line), optional($._statement)),
      $._statement,
    ),

    _line: $ => choice($._terminator, seq($._statement, $._terminator)),

    _statement: $ => choice(
      $.instruction,
      $.call_statement,
      $.ancilla_statement,
      $.if_statement,
      $.while_statement,
      $.for_statement,
      $.begin_block,
      $.inverse_statement,
      $.routine_statement,
      $.unroutine_statement,
      $.tape_statement,
      $.safe_statement,
      $.invcheckoff_statement,
      $.inbounds_statement,
      $.typecast_statement,
      $.swap_statement,
    ),

    instruction: $ => seq(
      field('target', $._expression),
      field('operator', $.instruction_operator),
      field('value', $._expression),
    ),

    instruction_operator: _ => choice(
      '+=', '-=', '⊻=', '^=', '*=', '/=', '=',
      '.+=', '.-=', '.⊻=', '.^=', '.*=', './=', '.=',
    ),

    // `x ↔ y`: NiLang.jl's spelling of `SWAP(x, y)`. A side written
    // `x::∅` is an empty slot: the other side's value moves into it.
    swap_statement: $ => seq(
      field('left', choice($._expression, $.empty_slot)),
      '↔',
      field('right', choice($._expression, $.empty_slot)),
    ),

    empty_slot: $ => seq(field('name', $.identifier), '::', '∅'),

    call_statement: $ => prec(1, seq(
      field('function', $._callee),
      field('arguments', $.argument_list),
    )),

    _callee: $ => choice(
      prec(PREC.postfix, $.identifier),
      $.parenthesized_inverse,
      $.parenthesized_derivative,
    ),

    parenthesized_inverse: $ => seq('(', '~', field('function', $.identifier), ')'),

    // `(∇f)(x, x̄, ...)`: the gradient program of `f`; `(∂f)(x, ẋ, ...)`:
    // its tangent (forward-mode) program. Each differentiable argument is
    // followed by its adjoint or tangent.
    parenthesized_derivative: $ => seq(
      '(',
      field('operator', $.derivative_operator),
      field('function', $.identifier),
      ')',
    ),

    derivative_operator: _ => choice('∇', '∂'),

    ancilla_statement: $ => seq(
      field('name', choice($._expression, $.destructuring)),
      field('direction', choice($.allocate, $.deallocate)),
      field('value', $._expression),
    ),

    // `m, n ← size(A)`: several names allocated at once.
    destructuring: $ => prec.right(seq(
      field('element', $._expression),
      repeat1(prec.right(seq(',', field('element', $._expression)))),
    )),

    allocate: _ => choice('←', '<-'),
    deallocate: _ => choice('→', '->'),

    condition: $ => prec(1, seq(
      '(',
      field('pre', $._expression),
      ',',
      field('post', choice($._expression, $.same_as_pre)),
      ')',
    )),

    same_as_pre: _ => '~',

    // After a condition without parentheses the body starts on a new line
    // (or after `;`): otherwise `if y + v > 0` could end its condition at
    // `y` and start the body with `+v`.
    if_statement: $ => seq(
      'if',
      choice(
        seq(field('condition', $.condition), field('consequence', optional($.block))),
        seq(field('condition', $._expression), field('consequence', optional(alias($.lined_block, $.block)))),
      ),
      repeat(field('alternative', $.elseif_clause)),
      optional(field('alternative', $.else_clause)),
      'end',
    ),

    elseif_clause: $ => seq(
      'elseif',
      choice(
        seq(field('condition', $.condition), field('body', optional($.block))),
        seq(field('condition', $._expression), field('body', optional(alias($.lined_block, $.block)))),
      ),
    ),

    lined_block: $ => seq($._terminator, repeat($._line), optional($._statement)),

    else_clause: $ => seq('else', field('body', optional($.block))),

    while_statement: $ => seq(
      'while',
      choice(
        seq(field('condition', $.condition), field('body', optional($.block))),
        seq(field('condition', $._expression), field('body', optional(alias($.lined_block, $.block)))),
      ),
      'end',
    ),

    // `for i = a:b`, or `for x in xs` over the elements of an array.
    for_statement: $ => seq(
      'for',
      field('variable', $.identifier),
      choice('=', 'in', '∈'),
      field('range', choice($.range, $.reversed_range, $._expression)),
      field('body', optional($.block)),
      'end',
    ),

    range: $ => seq(
      field('start', $._expression),
      ':',
      field('step_or_stop', $._expression),
      optional(seq(':', field('stop', $._expression))),
    ),

    // `reverse(a:s:b)` visits the elements of `a:s:b` backwards, and
    // `reverse(xs)` the elements of a collection; inverting a `for` loop
    // produces them, and inverting it again gives the range back.
    reversed_range: $ => seq('reverse', '(', field('range', choice($.range, $._expression)), ')'),

    begin_block: $ => seq('begin', field('body', optional($.block)), 'end'),

    inverse_statement: $ => seq(
      '~',
      choice(
        field('body', $._statement),
        // `~(s1; s2)` or one statement a line: the statements run inverted, last first.
        seq(
          '(',
          repeat($._terminator),
          field('body', $._statement),
          repeat(seq(repeat1($._terminator), field('body', $._statement))),
          repeat($._terminator),
          ')',
        ),
      ),
    ),

    // `@store @routine ...`: the reverse pass keeps what the routine's
    // forward run computes for it instead of computing it again.
    routine_statement: $ => seq(
      optional(field('storing', '@store')),
      '@routine',
      field('body', $._statement),
    ),

    unroutine_statement: _ => token(seq('~', /[ \t]*/, '@routine')),

    // `@tape for ...` / `@tape while ...`: a loop that records what it
    // overwrites, so its body may use `=`, `*=` and `/=`.
    tape_statement: $ => seq('@tape', field('body', choice($.for_statement, $.while_statement))),

    safe_statement: $ => seq('@safe', field('body', $._expression)),

    invcheckoff_statement: $ => seq('@invcheckoff', field('body', $._statement)),

    inbounds_statement: $ => seq('@inbounds', field('body', $._statement)),

    typecast_statement: $ => seq(
      field('cast', $.typecast),
      field('arguments', $.argument_list),
    ),

    typecast: $ => seq('(', field('from', $._type), '=>', field('to', $._type), ')'),

    // ---------------------------------------------------------------- expressions

    _expression: $ => choice(
      $.identifier,
      $.integer,
      $.float,
      $.imaginary,
      $.boolean,
      $.string,
      $.call,
      $.broadcast_call,
      $.index,
      $.field_access,
      $.adjoint,
      $.unary,
      $.binary,
      $.parenthesized,
      $.tuple,
      $.macro_call,
    ),

    call: $ => prec(PREC.postfix, seq(
      field('function', $._callee),
      field('arguments', $.argument_list),
    )),

    broadcast_call: $ => prec(PREC.postfix, seq(
      field('function', $._expression),
      '.',
      field('arguments', $.argument_list),
    )),

    argument_list: $ => seq(
      '(',
      commaSep(field('argument', $._expression)),
      optional(seq(';', commaSep(field('keyword', $.keyword_argument)))),
      ')',
    ),

    keyword_argument: $ => seq(field('name', $.identifier), '=', field('value', $._expression)),

    index: $ => prec(PREC.postfix, seq(
      field('value', $._expression),
      '[',
      commaSep1(field('index', choice($._index_value, alias($.index_range, $.range), $.colon))),
      ']',
    )),

    _index_value: $ => choice($._expression, $.end_index),

    // `end`, `end - k`, `end + k` inside an index: the last position of
    // that dimension (the lowering writes `length(x)` or `size(x, d)`).
    end_index: $ => seq(
      'end',
      optional(seq(
        field('operator', choice('-', '+')),
        field('offset', choice($.integer, $.identifier, $.parenthesized)),
      )),
    ),

    // A range inside an index, where its bounds may use `end` (`x[2:end]`).
    index_range: $ => seq(
      field('start', $._index_value),
      ':',
      field('step_or_stop', $._index_value),
      optional(seq(':', field('stop', $._index_value))),
    ),

    colon: _ => ':',

    field_access: $ => prec(PREC.postfix, seq(
      field('value', $._expression),
      '.',
      field('field', choice($.identifier, $.integer)),
    )),

    adjoint: $ => prec(PREC.postfix, seq(field('value', $._expression), token.immediate('\''))),

    unary: $ => prec(PREC.unary, seq(
      field('operator', choice('-', '+', '!')),
      field('operand', $._expression),
    )),

    binary: $ => {
      const table = [
        [prec.left, PREC.or, '||'],
        [prec.left, PREC.and, '&&'],
        [prec.left, PREC.compare, choice('==', '!=', '≠', '<', '<=', '≤', '>', '>=', '≥')],
        [prec.left, PREC.add, choice('+', '-', '|', '⊻', '.+', '.-')],
        [prec.left, PREC.mul, choice('*', '/', '÷', '%', '&', '.*', './')],
        [prec.left, PREC.shift, choice('<<', '>>')],
        [prec.right, PREC.power, choice('^', '.^')],
      ];
      return choice(...table.map(([fn, p, op]) => fn(p, seq(
        field('left', $._expression),
        // @ts-ignore
        field('operator', op),
        field('right', $._expression),
      ))));
    },

    parenthesized: $ => seq('(', field('expression', $._expression), ')'),

    tuple: $ => seq(
      '(',
      field('element', $._expression),
      ',',
      commaSep(field('element', $._expression)),
      ')',
    ),

    macro_call: $ => prec.right(seq(
      field('name', $.macro_name),
      optional(field('argument', $._expression)),
    )),

    macro_name: _ => /@[A-Za-z_][A-Za-z0-9_]*/,

    // ---------------------------------------------------------------- tokens

    identifier: _ => IDENT,

    integer: _ => token(choice(/[0-9][0-9_]*/, /0x[0-9a-fA-F_]+/, /0b[01_]+/)),

    float: _ => token(choice(
      /[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9]+)?/,
      /\.[0-9][0-9_]*([eE][+-]?[0-9]+)?/,
      /[0-9][0-9_]*[eE][+-]?[0-9]+/,
    )),

    // `3.0im`, `2im`: an imaginary literal (the number times `im`).
    imaginary: _ => token(seq(
      choice(
        /[0-9][0-9_]*/,
        /[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9]+)?/,
        /\.[0-9][0-9_]*([eE][+-]?[0-9]+)?/,
        /[0-9][0-9_]*[eE][+-]?[0-9]+/,
      ),
      'im',
    )),

    boolean: _ => choice('true', 'false'),

    string: _ => token(choice(
      seq('"""', repeat(choice(/[^"\\]/, /\\./, /"[^"]/, /""[^"]/)), '"""'),
      seq('"', repeat(choice(/[^"\\\n]/, /\\./)), '"'),
    )),

    comment: _ => token(seq('#', /.*/)),
  },
});
