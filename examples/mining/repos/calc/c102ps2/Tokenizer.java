package org.example.calc;

import java.util.ArrayList;
import java.util.List;

public class Tokenizer {
    public List<String> tokenize(String input) {
        List<String> tokens = new ArrayList<>();
        if (input.isEmpty()) {
            return tokens;
        }
        for (String part : input.split("\\s+")) {
            tokens.add(part);
        }
        return tokens;
    }
}
