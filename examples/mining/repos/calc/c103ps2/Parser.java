package org.example.calc;

import java.util.List;

public class Parser {
    private Tokenizer tokenizer = new Tokenizer();

    public int evaluate(String expression) {
        List<String> tokens = tokenizer.tokenize(expression);
        int result = Integer.parseInt(tokens.get(0));
        for (int i = 1; i < tokens.size(); i += 2) {
            String op = tokens.get(i);
            int value = Integer.parseInt(tokens.get(i + 1));
            if (op.equals("+")) {
                result = result + value;
            } else if (op.equals("-")) {
                result = result - value;
            } else if (op.equals("*")) {
                result = result * value;
            } else if (op.equals("/")) {
                result = result / value;
            }
        }
        return result;
    }
}
