package org.example.calc;

import java.util.ArrayList;
import java.util.List;

/** Splits an arithmetic expression into lexemes. */
public class Lexer {
    public List<String> tokenize(String input) {
        List<String> tokens = new ArrayList<>();
        if (input.length() == 0) {
            return tokens;
        }
        for (String part : input.split(" ")) {
            tokens.add(part);
        }
        return tokens;
    }
}
