package org.example.textkit;

public final class Words {

    public static int count(String line) {
        if (line.trim().isEmpty()) {
            return 0;
        }
        String[] words = line.trim().split(" +");
        return words.length;
    }
}
